/** The most of `times` (ms, any order) that fall in any window of `windowMs`. */
export function mostInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (const [last, at] of sorted.entries()) {
    while (sorted[first]! <= at - windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}
