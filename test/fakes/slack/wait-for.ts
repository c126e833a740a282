/** Polls until `predicate` returns a truthy value and resolves with it; rejects after `timeoutMs`. */
export async function waitFor<T>(predicate: () => T | undefined | null | false, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`fake Slack: timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
