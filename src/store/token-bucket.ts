import type { TokenBucketOptions, TokenBucketResult } from './store.ts';

export interface BucketState {
  tokens: number;
  updatedMs: number;
}

/** One round trip to a shared bucket: hand back unused tokens, then take as many whole ones as are there, up to `want`. */
export interface TokenExchange {
  capacity: number;
  refillPerSecond: number;
  /** Tokens returned unused; the bucket still holds at most `capacity`. */
  giveBack: number;
  /** Whole tokens wanted; 0 only returns. */
  want: number;
}

export interface TokenExchangeResult {
  /** Whole tokens taken, 0 to `want`. */
  granted: number;
  /** When fewer than `want` were granted: how long until the next whole token is back; 0 otherwise. */
  retryAfterMs: number;
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

export function checkExchange(exchange: TokenExchange): TokenExchange {
  const { capacity, refillPerSecond, giveBack, want } = exchange;
  if (!(capacity > 0) || !(refillPerSecond > 0) || !Number.isInteger(giveBack) || giveBack < 0 || !Number.isInteger(want) || want < 0) {
    throw new RangeError(
      `token exchange needs capacity > 0, refillPerSecond > 0 and whole giveBack, want >= 0 (got ${capacity}, ${refillPerSecond}, ${giveBack}, ${want})`,
    );
  }
  return { capacity, refillPerSecond, giveBack, want };
}

/** Tokens in a bucket that starts full and refills continuously, as of `nowMs`. */
function refilled(state: BucketState | undefined, capacity: number, refillPerSecond: number, nowMs: number): number {
  const elapsedMs = state ? Math.max(0, nowMs - state.updatedMs) : 0;
  return Math.min(capacity, (state?.tokens ?? capacity) + (elapsedMs * refillPerSecond) / 1000);
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
  let tokens = refilled(state, capacity, refillPerSecond, nowMs);
  const allowed = tokens >= cost;
  if (allowed) tokens -= cost;
  const retryAfterMs = allowed ? 0 : Math.ceil(((cost - tokens) * 1000) / refillPerSecond);
  return { state: { tokens, updatedMs: nowMs }, result: { allowed, remaining: tokens, retryAfterMs } };
}

/** One exchange with the same bucket (Store.exchangeTokens); the Lua in redis-scripts.ts does the same. */
export function exchangeWithBucket(
  state: BucketState | undefined,
  exchange: TokenExchange,
  nowMs: number,
): { state: BucketState; result: TokenExchangeResult } {
  const { capacity, refillPerSecond, giveBack, want } = checkExchange(exchange);
  let tokens = Math.min(capacity, refilled(state, capacity, refillPerSecond, nowMs) + giveBack);
  const granted = Math.min(want, Math.floor(tokens));
  tokens -= granted;
  const retryAfterMs = granted < want ? Math.ceil(((1 - tokens) * 1000) / refillPerSecond) : 0;
  return { state: { tokens, updatedMs: nowMs }, result: { granted, retryAfterMs } };
}

/** How long an untouched bucket needs to be full again, after which its state can be forgotten. */
export function bucketIdleTtlMs(options: { capacity: number; refillPerSecond: number }): number {
  return Math.ceil((options.capacity * 1000) / options.refillPerSecond) + 1000;
}
