/** Enough of a fetch `Headers` to read the rate-limit fields. */
export interface HeadersLike {
  get(name: string): string | null;
}

interface Bucket {
  limit: number;
  remaining: number;
  /** Local time (ms) when the bucket refills; measured from our receipt of the response, so never early. */
  resetAt: number;
}

const SNOWFLAKE = /\d{17,20}/g;
const MAJOR = /^\/webhooks\/(\d{17,20}\/[^/?]+)|^\/(?:channels|guilds|webhooks)\/(\d{17,20})/;
/** Any 19-digit id: stands for "some message" when a key is built before the message exists. */
export const ANY_ID = '1000000000000000000';
const SWEEP_AT = 512;
const STALE_MS = 60_000;

/**
 * The key discord.js and Discord give a REST path's bucket: method, the route with ids replaced, and the
 * major parameter (channel, guild, or webhook id + token) that splits the bucket per resource.
 */
export function routeKey(method: string, path: string): string {
  const bare = path.replace(/\?.*$/, '');
  const major = MAJOR.exec(bare);
  const route = bare.replace(SNOWFLAKE, ':id').replace(/\/webhooks\/:id\/[^/]+/, '/webhooks/:id/:token');
  return `${method.toUpperCase()} ${route} ${major?.[2] ?? major?.[1] ?? 'global'}`;
}

/**
 * What Discord's X-RateLimit headers said about each bucket, so a streamed reply can spread its edits over the
 * allowance left until the bucket resets instead of bursting into it and queueing behind a 429.
 */
export class RouteRateLimits {
  readonly #buckets = new Map<string, Bucket>();
  readonly #sharers = new Map<string, number>();
  readonly #now: () => number;
  #nextSweepAt = 0;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Records a response's rate-limit headers (responses without them are ignored). */
  observe(method: string, path: string, headers: HeadersLike): void {
    const limit = Number(headers.get('x-ratelimit-limit'));
    const remaining = Number(headers.get('x-ratelimit-remaining'));
    const resetAfter = Number(headers.get('x-ratelimit-reset-after'));
    if (!headers.get('x-ratelimit-limit') || !Number.isFinite(limit + remaining + resetAfter)) return;
    const now = this.#now();
    if (this.#buckets.size >= SWEEP_AT && now >= this.#nextSweepAt) this.#sweep(now);
    this.#buckets.set(routeKey(method, path), { limit, remaining, resetAt: now + resetAfter * 1000 });
  }

  /** Counts one more reply pacing its calls on `key`; call the returned function when it is done. */
  share(key: string): () => void {
    this.#sharers.set(key, (this.#sharers.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#sharers.get(key) ?? 1) - 1;
      if (left > 0) this.#sharers.set(key, left);
      else this.#sharers.delete(key);
    };
  }

  /**
   * How long the next call on `key` should wait: the time to the bucket's reset spread evenly over the calls
   * it still allows, times the replies sharing it. `unknownMs` applies before Discord has said anything.
   */
  delayMs(key: string, unknownMs: number): number {
    const sharers = Math.max(1, this.#sharers.get(key) ?? 0);
    const bucket = this.#buckets.get(key);
    if (!bucket) return unknownMs * sharers;
    const untilReset = bucket.resetAt - this.#now();
    if (untilReset <= 0) return 0;
    if (bucket.remaining <= 0) return untilReset;
    return Math.ceil((untilReset / bucket.remaining) * sharers);
  }

  /** Forgets buckets long past their reset (at most every half minute: a sweep walks them all). */
  #sweep(now: number): void {
    this.#nextSweepAt = now + STALE_MS / 2;
    for (const [key, bucket] of this.#buckets) {
      if (bucket.resetAt < now - STALE_MS && !this.#sharers.has(key)) this.#buckets.delete(key);
    }
  }
}
