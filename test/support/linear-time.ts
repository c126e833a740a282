import { expect } from 'vitest';

function fastest(run: () => void): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    run();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

/**
 * Asserts that `work` grows linearly with its input: eight times the input may cost at most about eight times the
 * time (a quadratic path costs 64 times), and the large input finishes well within a second.
 */
export function expectLinearTime(work: (size: number) => void, largeSize = 200_000): void {
  const small = fastest(() => work(largeSize / 8));
  const large = fastest(() => work(largeSize));
  expect(large).toBeLessThan(1000);
  expect(large / Math.max(small, 1)).toBeLessThan(24);
}
