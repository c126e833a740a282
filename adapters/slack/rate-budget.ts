/**
 * Herald's own account of Slack's Web API rate limits, so replies pace themselves and never earn a 429.
 * Slack limits each method per workspace in tiers ("Tier 2: 20+ per minute" …) and chat.postMessage to about one
 * message per second per channel with short bursts. Each limit here is a token bucket whose burst plus refill
 * over a minute never exceeds the tier's count, so no rolling minute can go over it.
 */

export interface BucketLimit {
  /** Calls allowed at once. */
  burst: number;
  /** Calls added back per second. */
  perSecond: number;
}

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
  'conversations.replies': tier(3),
  'assistant.threads.setStatus': tier(3),
  'assistant.threads.setSuggestedPrompts': tier(3),
  'assistant.threads.setTitle': tier(3),
  'chat.appendStream': tier(4),
  'chat.postEphemeral': tier(4),
  'users.info': tier(4),
  'files.info': tier(4),
  'files.getUploadURLExternal': tier(4),
  'files.completeUploadExternal': tier(4),
};

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

export class RateBudget {
  readonly #methods: Readonly<Record<string, BucketLimit>>;
  readonly #perChannel: BucketLimit;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: RateBudgetOptions = {}) {
    this.#methods = options.methods ?? SLACK_METHOD_LIMITS;
    this.#perChannel = options.postMessagePerChannel ?? POST_MESSAGE_PER_CHANNEL;
    this.#now = options.now ?? (() => performance.now());
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Milliseconds until `method` (in `channel`, for chat.postMessage) may be called; 0 when it may now. */
  waitMs(method: string, channel?: string): number {
    const bucket = this.#bucket(method, channel);
    if (!bucket || bucket.tokens >= 1) return 0;
    return Math.ceil(((1 - bucket.tokens) / bucket.limit.perSecond) * 1000);
  }

  /** Takes one call of each method now if every one is available; takes nothing otherwise. */
  tryTake(methods: readonly string[], channel?: string): boolean {
    const buckets = methods.map((m) => this.#bucket(m, channel));
    if (buckets.some((b) => b && b.tokens < 1)) return false;
    for (const bucket of buckets) if (bucket) bucket.tokens -= 1;
    return true;
  }

  /** Waits until `method` may be called and takes the call. */
  async take(method: string, channel?: string): Promise<void> {
    for (;;) {
      const wait = this.waitMs(method, channel);
      if (wait === 0 && this.tryTake([method], channel)) return;
      await this.#sleep(Math.max(wait, 1));
    }
  }

  #bucket(method: string, channel: string | undefined): Bucket | undefined {
    const limit = method === 'chat.postMessage' ? this.#perChannel : this.#methods[method];
    if (!limit) return undefined;
    const key = method === 'chat.postMessage' ? `${method}:${channel ?? ''}` : method;
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
