/**
 * Slack's Web API rate limits: each method sits in a tier evaluated per method per workspace over a rolling
 * minute ("Tier 1: 1+ per minute" … "Tier 4: 100+ per minute", bursts tolerated), and chat.postMessage has its
 * own "special" limit of about one message per second per channel with short bursts allowed.
 * A refused call gets HTTP 429, a Retry-After header in whole seconds and {"ok":false,"error":"ratelimited"}.
 */

export interface WindowLimit {
  limit: number;
  windowMs: number;
}

export interface ChannelLimit {
  /** Messages a channel may take at once before the sustained rate applies. */
  burst: number;
  perSecond: number;
}

export interface RateLimitOptions {
  /** Default true. False turns every limit off (forced 429s still apply). */
  enabled?: boolean;
  /** Per-method override of the tier window; false exempts the method. */
  methods?: Record<string, WindowLimit | false>;
  /** chat.postMessage's per-channel limit; false exempts it. */
  postMessagePerChannel?: ChannelLimit | false;
  /**
   * Slack's limits since 2025 for apps distributed outside the Marketplace: conversations.history and
   * conversations.replies allow one call a minute and at most 15 messages a page.
   */
  limitedHistory?: boolean;
}

const LIMITED_HISTORY_METHODS = new Set(['conversations.history', 'conversations.replies']);
/** The page size Slack allows a limited app, whatever `limit` asked for. */
export const LIMITED_HISTORY_PAGE = 15;

const MINUTE = 60_000;
/** A rolling minute per tier; Tier 1's "1+" tolerates the small burst a reconnecting client makes. */
export const TIERS: Record<1 | 2 | 3 | 4, WindowLimit> = {
  1: { limit: 5, windowMs: MINUTE },
  2: { limit: 20, windowMs: MINUTE },
  3: { limit: 50, windowMs: MINUTE },
  4: { limit: 100, windowMs: MINUTE },
};

export const METHOD_TIERS: Record<string, 1 | 2 | 3 | 4> = {
  'apps.connections.open': 1,
  'chat.startStream': 2,
  'chat.stopStream': 2,
  'chat.update': 3,
  'chat.delete': 3,
  'conversations.history': 3,
  'conversations.replies': 3,
  'conversations.info': 3,
  'conversations.members': 4,
  'conversations.list': 2,
  'chat.getPermalink': 4,
  'reactions.add': 3,
  'reactions.remove': 3,
  'assistant.threads.setStatus': 3,
  'assistant.threads.setSuggestedPrompts': 3,
  'assistant.threads.setTitle': 3,
  'team.info': 3,
  'bots.info': 3,
  'chat.appendStream': 4,
  'chat.postEphemeral': 4,
  'users.info': 4,
  'files.info': 4,
  'files.getUploadURLExternal': 4,
  'files.completeUploadExternal': 4,
};

export const DEFAULT_POST_MESSAGE_LIMIT: ChannelLimit = { burst: 5, perSecond: 1 };

export interface Served429 {
  method: string;
  channel?: string;
  retryAfterSec: number;
  forced: boolean;
  at: number;
}

export type RateDecision = { limited: false } | { limited: true; retryAfterSec: number };

export class RateLimiter {
  readonly served: Served429[] = [];
  readonly #options: RateLimitOptions;
  readonly #hits = new Map<string, number[]>();
  readonly #buckets = new Map<string, { tokens: number; updatedAt: number }>();
  readonly #forced = new Map<string, { times: number; retryAfterSec: number }>();

  constructor(options: RateLimitOptions = {}) {
    this.#options = options;
  }

  /** Makes the next `times` calls of `method` fail with 429 regardless of the windows. */
  force(method: string, { times = 1, retryAfterSec = 1 }: { times?: number; retryAfterSec?: number } = {}): void {
    this.#forced.set(method, { times, retryAfterSec });
  }

  /** Decides one call; an allowed call is counted against its window. */
  check(method: string, channel: string | undefined, now = Date.now()): RateDecision {
    const forced = this.#forced.get(method);
    if (forced && forced.times > 0) {
      forced.times -= 1;
      return this.#refuse(method, channel, forced.retryAfterSec, true, now);
    }
    if (this.#options.enabled === false) return { limited: false };

    if (method === 'chat.postMessage') {
      const limit = this.#options.postMessagePerChannel ?? DEFAULT_POST_MESSAGE_LIMIT;
      if (limit === false || channel === undefined) return { limited: false };
      const key = `chat.postMessage:${channel}`;
      const bucket = this.#buckets.get(key) ?? { tokens: limit.burst, updatedAt: now };
      bucket.tokens = Math.min(limit.burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * limit.perSecond);
      bucket.updatedAt = now;
      this.#buckets.set(key, bucket);
      if (bucket.tokens < 1) {
        const waitMs = ((1 - bucket.tokens) / limit.perSecond) * 1000;
        return this.#refuse(method, channel, Math.max(1, Math.ceil(waitMs / 1000)), false, now);
      }
      bucket.tokens -= 1;
      return { limited: false };
    }

    const window = this.#windowFor(method);
    if (!window) return { limited: false };
    const hits = (this.#hits.get(method) ?? []).filter((t) => t > now - window.windowMs);
    this.#hits.set(method, hits);
    if (hits.length >= window.limit) {
      const oldest = hits[0] ?? now;
      const waitMs = oldest + window.windowMs - now;
      return this.#refuse(method, channel, Math.max(1, Math.ceil(waitMs / 1000)), false, now);
    }
    hits.push(now);
    return { limited: false };
  }

  /** The most messages a page of `method` may hold under the app's limits, when they cap it. */
  pageCap(method: string): number | undefined {
    return this.#options.limitedHistory && LIMITED_HISTORY_METHODS.has(method) ? LIMITED_HISTORY_PAGE : undefined;
  }

  #windowFor(method: string): WindowLimit | undefined {
    if (this.#options.limitedHistory && LIMITED_HISTORY_METHODS.has(method)) return { limit: 1, windowMs: MINUTE };
    const override = this.#options.methods?.[method];
    if (override === false) return undefined;
    if (override) return override;
    const tier = METHOD_TIERS[method];
    return tier ? TIERS[tier] : undefined;
  }

  #refuse(method: string, channel: string | undefined, retryAfterSec: number, forced: boolean, now: number): RateDecision {
    this.served.push({ method, ...(channel ? { channel } : {}), retryAfterSec, forced, at: now });
    return { limited: true, retryAfterSec };
  }
}
