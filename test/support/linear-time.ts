import { expect } from 'vitest';

function timed(run: () => void): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

/**
 * Asserts that `work` grows linearly with its input: eight times the input may cost at most about eight times the
 * time (a quadratic path costs 64 times), and the large input finishes well within a second. The two sizes take
 * turns and the fastest run of each counts, so a busy machine slows both alike.
 */
export function expectLinearTime(work: (size: number) => void, largeSize = 200_000): void {
  let small = Infinity;
  let large = Infinity;
  for (let round = 0; round < 8; round++) {
    const smallRun = timed(() => work(largeSize / 8));
    const largeRun = timed(() => work(largeSize));
    small = Math.min(small, smallRun);
    large = Math.min(large, largeRun);
  }
  expect(large).toBeLessThan(1000);
  expect(large / Math.max(small, 1)).toBeLessThan(24);
}
