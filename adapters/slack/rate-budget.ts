/**
 * Herald's own account of Slack's Web API rate limits, so replies pace themselves and never earn a 429.
 * Slack limits each method per workspace in tiers ("Tier 2: 20+ per minute" …) and chat.postMessage to about one
 * message per second per channel with short bursts. Each limit here is a token bucket whose burst plus refill
 * over a minute never exceeds the tier's count, so no rolling minute can go over it.
 */

import type { LeaseLimit, TokenLeases } from '../../src/platform/shared-limits.ts';

/** `burst` calls at once, `perSecond` added back. */
export type BucketLimit = LeaseLimit;

/** Calls per rolling minute Slack documents for a tier. */
const TIER_PER_MINUTE = { 2: 20, 3: 50, 4: 100 } as const;

function tier(level: keyof typeof TIER_PER_MINUTE): BucketLimit {
  const perMinute = TIER_PER_MINUTE[level];
  const burst = Math.floor(perMinute / 5);
  return { burst, perSecond: (perMinute - burst) / 60 };
}

/** The methods Herald calls, by Slack's published tier. */
export const SLACK_METHOD_LIMITS: Readonly<Record<string, BucketLimit>> = {
  'chat.startStream': tier(2),
  'chat.stopStream': tier(2),
  'chat.update': tier(3),
  'chat.delete': tier(3),
  'conversations.history': tier(3),
  'conversations.info': tier(3),
  'conversations.replies': tier(3),
  'conversations.list': tier(2),
  'conversations.members': tier(4),
  'reactions.add': tier(3),
  'reactions.remove': tier(2),
  'assistant.threads.setStatus': tier(3),
  'assistant.threads.setSuggestedPrompts': tier(3),
  'assistant.threads.setTitle': tier(3),
  'chat.appendStream': tier(4),
  'chat.postEphemeral': tier(4),
  'users.info': tier(4),
  'files.info': tier(4),
  'files.getUploadURLExternal': tier(4),
  'files.completeUploadExternal': tier(4),
  'views.publish': tier(4),
};

/**
 * How instances share the budget through a Redis store: Slack's tiers count a rolling minute, and a leased call
 * may be made up to 5 s after the lease, so the shared buckets refill at 60/65 of the rates here (tier 3: 36.9
 * a minute after the burst of 10, instead of 40). Shorter leases would cost more trips to Redis.
 */
export const SHARED_SLACK_BUDGET = { windowMs: 60_000, ttlMs: 5000 } as const;

/** chat.postMessage per channel: Slack allows about one a second with short bursts. */
export const POST_MESSAGE_PER_CHANNEL: BucketLimit = { burst: 3, perSecond: 1 };

export interface RateBudgetOptions {
  methods?: Readonly<Record<string, BucketLimit>>;
  postMessagePerChannel?: BucketLimit;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const MAX_BUCKETS = 1000;

interface Bucket {
  tokens: number;
  at: number;
  limit: BucketLimit;
}

interface Found {
  key: string;
  limit: BucketLimit;
}

export class RateBudget {
  readonly #methods: Readonly<Record<string, BucketLimit>>;
  readonly #perChannel: BucketLimit;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #buckets = new Map<string, Bucket>();
  /** Calls promised to holders of a reservation, per method: nobody else may take them. */
  readonly #reserved = new Map<string, number>();
  #leases: TokenLeases | undefined;

  constructor(options: RateBudgetOptions = {}) {
    this.#methods = options.methods ?? SLACK_METHOD_LIMITS;
    this.#perChannel = options.postMessagePerChannel ?? POST_MESSAGE_PER_CHANNEL;
    this.#now = options.now ?? (() => performance.now());
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /**
   * From now on every limit is this instance's share of one budget that all instances sharing the store draw on
   * (per workspace: the leases' key prefix names it). Reservations are kept in the share, so they hold across
   * instances too.
   */
  shareThrough(leases: TokenLeases): void {
    this.#leases = leases;
  }

  /**
   * Milliseconds until `method` (in `channel`, for chat.postMessage) may be called with `keep` calls still left
   * over; 0 when it may now, Infinity when the reservations held leave too little room.
   */
  waitMs(method: string, channel?: string, keep = 0): number {
    const found = this.#find(method, channel);
    if (!found) return 0;
    const needed = 1 + keep + this.#reservedFor(method);
    if (this.#leases) return this.#leases.waitMs(found.key, found.limit, needed);
    const bucket = this.#bucket(found);
    if (bucket.tokens >= needed) return 0;
    if (needed > bucket.limit.burst) return Infinity;
    return Math.ceil(((needed - bucket.tokens) / bucket.limit.perSecond) * 1000);
  }

  /**
   * Takes one call of each method now if every one is available with `keep` calls left over (besides those
   * reserved); takes nothing otherwise.
   */
  tryTake(methods: readonly string[], channel?: string, keep = 0): boolean {
    const found = methods.map((m) => [m, this.#find(m, channel)] as const);
    if (found.some(([m, f]) => f && !this.#has(f, 1 + keep + this.#reservedFor(m)))) return false;
    for (const [, f] of found) if (f) this.#use(f);
    return true;
  }

  /**
   * Resolves once a call of each of `methods` is at hand or known to be spent, so that a `tryTake` or `reserve`
   * right after is not refused only because this instance's share of a shared budget had gone cold. At once
   * without a shared budget.
   */
  async ready(methods: readonly string[]): Promise<void> {
    const leases = this.#leases;
    if (!leases) return;
    await Promise.all(
      methods.map((m) => {
        const found = this.#find(m, undefined);
        return found && leases.settled(found.key, found.limit, 1 + this.#reservedFor(m));
      }),
    );
  }

  /**
   * Promises one later call of a workspace-wide `method` if one is free now: until it is used (`takeReserved`) or
   * given back (`release`), no other caller can take it, so the holder's call never waits. Calls are still
   * counted when made, so the limit holds however long a reservation is held.
   */
  reserve(method: string): boolean {
    const found = this.#find(method, undefined);
    if (!found) return true;
    if (!this.#has(found, 1 + this.#reservedFor(method))) return false;
    this.#setReserved(method, this.#reservedFor(method) + 1);
    return true;
  }

  release(method: string): void {
    this.#setReserved(method, Math.max(0, this.#reservedFor(method) - 1));
  }

  /** Makes the call a reservation promised; at once, as every other taker leaves the reserved calls alone. */
  async takeReserved(method: string): Promise<void> {
    this.release(method);
    await this.take(method);
  }

  /** Waits until `method` may be called and takes the call. */
  async take(method: string, channel?: string): Promise<void> {
    const found = this.#find(method, channel);
    for (;;) {
      // A shared budget's lease on its way: wait for its round trip rather than poll (a slow store could take seconds).
      if (this.#leases && found) await this.#leases.settled(found.key, found.limit, 1 + this.#reservedFor(method));
      const wait = this.waitMs(method, channel);
      if (wait === 0 && this.tryTake([method], channel)) return;
      // Reservations being given back or used free room that no refill time predicts.
      await this.#sleep(Math.min(Math.max(wait, 1), 1000));
    }
  }

  #reservedFor(method: string): number {
    return this.#reserved.get(method) ?? 0;
  }

  #setReserved(method: string, held: number): void {
    if (held === 0) this.#reserved.delete(method);
    else this.#reserved.set(method, held);
    const found = this.#find(method, undefined);
    // The share keeps the reserved calls leased, renewing them as their leases run out.
    if (found) this.#leases?.keep(found.key, found.limit, held);
  }

  #find(method: string, channel: string | undefined): Found | undefined {
    if (method === 'chat.postMessage') return { key: `${method}:${channel ?? ''}`, limit: this.#perChannel };
    const limit = this.#methods[method];
    return limit && { key: method, limit };
  }

  /** Whether `needed` calls are available now; with a shared budget, a shortfall is leased in the background. */
  #has(found: Found, needed: number): boolean {
    if (this.#leases) return this.#leases.held(found.key, found.limit, needed) >= needed;
    return this.#bucket(found).tokens >= needed;
  }

  #use(found: Found): void {
    if (this.#leases) this.#leases.use(found.key);
    else this.#bucket(found).tokens -= 1;
  }

  #bucket({ key, limit }: Found): Bucket {
    const now = this.#now();
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      if (this.#buckets.size >= MAX_BUCKETS) this.#forgetFull(now);
      bucket = { tokens: limit.burst, at: now, limit };
      this.#buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * limit.perSecond);
    bucket.at = now;
    return bucket;
  }

  /** A full bucket is the same as a missing one, so channels gone quiet cost no memory. */
  #forgetFull(now: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * bucket.limit.perSecond >= bucket.limit.burst) this.#buckets.delete(key);
    }
  }
}
