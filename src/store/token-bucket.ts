import type { TokenBucketOptions, TokenBucketResult } from './store.ts';

export interface BucketState {
  tokens: number;
  updatedMs: number;
}

export function checkBucketOptions(options: TokenBucketOptions): Required<TokenBucketOptions> {
  const cost = options.cost ?? 1;
  if (!(options.capacity > 0) || !(options.refillPerSecond > 0) || !(cost >= 0) || cost > options.capacity) {
    throw new RangeError(
      `token bucket needs capacity > 0, refillPerSecond > 0 and 0 <= cost <= capacity (got ${options.capacity}, ${options.refillPerSecond}, ${cost})`,
    );
  }
  return { capacity: options.capacity, refillPerSecond: options.refillPerSecond, cost };
}

/**
 * One take from a bucket that starts full and refills continuously. The Redis backend runs the same
 * arithmetic in Lua (redis-scripts.ts); keep the two in step.
 */
export function takeFromBucket(
  state: BucketState | undefined,
  options: Required<TokenBucketOptions>,
  nowMs: number,
): { state: BucketState; result: TokenBucketResult } {
  const { capacity, refillPerSecond, cost } = options;
  const elapsedMs = state ? Math.max(0, nowMs - state.updatedMs) : 0;
  let tokens = Math.min(capacity, (state?.tokens ?? capacity) + (elapsedMs * refillPerSecond) / 1000);
  const allowed = tokens >= cost;
  if (allowed) tokens -= cost;
  const retryAfterMs = allowed ? 0 : Math.ceil(((cost - tokens) * 1000) / refillPerSecond);
  return { state: { tokens, updatedMs: nowMs }, result: { allowed, remaining: tokens, retryAfterMs } };
}

/** How long an untouched bucket needs to be full again, after which its state can be forgotten. */
export function bucketIdleTtlMs(options: Required<TokenBucketOptions>): number {
  return Math.ceil((options.capacity * 1000) / options.refillPerSecond) + 1000;
}
