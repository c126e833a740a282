import { expect } from 'vitest';

function timed(run: () => void): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

/**
 * Asserts that `work` grows linearly with its input: sixteen times the input may cost at most four times more than
 * sixteen times the time (a quadratic path costs 256 times, four times over the bound: the margin either side keeps a
 * busy machine's noise from deciding), and the large input finishes well within a second. The two sizes take turns
 * and the fastest run of each counts, so a busy machine slows both alike.
 */
export function expectLinearTime(work: (size: number) => void, largeSize = 200_000): void {
  let small = Infinity;
  let large = Infinity;
  for (let round = 0; round < 8; round++) {
    const smallRun = timed(() => work(largeSize / 16));
    const largeRun = timed(() => work(largeSize));
    small = Math.min(small, smallRun);
    large = Math.min(large, largeRun);
  }
  expect(large).toBeLessThan(1000);
  expect(large / Math.max(small, 1)).toBeLessThan(64);
}
