import { describe, expect, it } from 'vitest';
import { estimateTextTokens } from '../../src/conversation/token-estimate.ts';
import { planParts } from '../../src/workspace/summarize-parts.ts';

describe('planParts', () => {
  it('fills parts from the newest line back within the budget, leaves out the oldest past the cap, cuts a line too long alone', () => {
    const lines = Array.from({ length: 10 }, (_, i) => `[${i + 1}] ${'word '.repeat(8)}`);
    lines[8] = `[9] ${'x'.repeat(400)}`;
    const plan = planParts(lines, 40, 3);
    expect(plan.parts.map((p) => [p.first, p.last])).toEqual([
      [1, 3],
      [4, 6],
      [7, 9],
    ]);
    expect(plan.leftOut).toBe(1);
    expect(plan.parts.flatMap((p) => p.lines.map((line) => line.slice(0, 4)))).toEqual(lines.slice(1).map((line) => line.slice(0, 4)));
    for (const part of plan.parts) expect(part.lines.reduce((sum, line) => sum + estimateTextTokens(line) + 1, 0)).toBeLessThanOrEqual(40);
    expect(plan.parts[2]!.lines[1]).toMatch(/^\[9\] x{30,}…$/);
    expect(planParts(lines.slice(0, 2), 1000, 3)).toEqual({ parts: [{ lines: lines.slice(0, 2), first: 0, last: 1 }], leftOut: 0 });
  });
});
