/** Scores are finite numbers: NaN and infinities order differently in each backend. */
export function checkScore(score: number): void {
  if (!Number.isFinite(score)) throw new RangeError(`a sorted set's score must be a finite number (got ${score})`);
}
