import type { Logger } from '../log/logger.ts';
import type { Store } from './store.ts';
import { exchangeWithBucket, type BucketState, type TokenExchange, type TokenExchangeResult } from './token-bucket.ts';

/** A platform's limit as a bucket: `burst` plus `perSecond` over the platform's window never exceeds its count. */
export interface LeaseLimit {
  burst: number;
  perSecond: number;
}

export interface TokenLeasesOptions {
  store: Store;
  logger: Logger;
  /** Every bucket key in the store starts with this (platform and workspace or bot). */
  prefix: string;
  /** The window the platform counts its limit over: a minute for Slack's tiers, a second for Discord's global limit. */
  windowMs: number;
  /** How long a leased token may be used; unused ones then go back to the shared bucket. */
  ttlMs: number;
  /** Each lease asked for, for a metric: `short` when fewer tokens came than were asked for. */
  onLease?: (outcome: 'granted' | 'short') => void;
}

interface Slice {
  count: number;
  expiresAt: number;
}

interface Share {
  limit: LeaseLimit;
  slices: Slice[];
  /** Tokens that expired unused, given back with the next exchange. */
  expired: number;
  /** Tokens callers lately asked to hold; forgotten once a lease expires unused. */
  wanted: number;
  /** Tokens held even while nobody uses them (reservations). */
  floor: number;
  usedSinceLease: boolean;
  exchanging: boolean;
  /** When the store expects its next token back, after refusing some. */
  nextTokenAt: number;
  /** When to ask again after a refusal: no later than a ttl, as other instances give back unused tokens by then. */
  retryAt: number;
  waiters: Array<() => void>;
  timer: NodeJS.Timeout | undefined;
}

/** How long to count in this process alone after the store failed, before asking it again. */
const STORE_RETRY_MS = 5000;

/**
 * This instance's share of rate limits that all instances sharing the store draw on. Tokens are leased from a
 * shared bucket (Store.exchangeTokens) a few at a time and used from memory, so the store is off the hot path;
 * a leased token is usable for `ttlMs`, then what is left goes back, or is exchanged for fresh ones while wanted.
 *
 * A token leased at t may be used until t + ttl, so calls in any window were leased within window + ttl: the shared
 * bucket refills at perSecond × window / (window + ttl), which keeps burst + rate × (window + ttl) within the limit.
 * When the store fails, the same buckets are kept in this process (each instance then has the whole limit).
 */
export class TokenLeases {
  readonly #options: TokenLeasesOptions;
  readonly #shares = new Map<string, Share>();
  readonly #local = new Map<string, BucketState>();
  #storeDownUntil = 0;

  constructor(options: TokenLeasesOptions) {
    this.#options = options;
  }

  /** Tokens held for `key` now; when fewer than `wanted`, more are leased in the background. */
  held(key: string, limit: LeaseLimit, wanted = 0): number {
    const share = this.#share(key, limit);
    const held = this.#count(share);
    if (held < wanted) {
      share.wanted = Math.max(share.wanted, Math.min(wanted, Math.floor(limit.burst)));
      this.#refill(key, share);
    }
    return held;
  }

  /** Uses a held token (the caller checked `held`), the one leased first, topping the share up in the background. */
  use(key: string): void {
    const share = this.#shares.get(key);
    const first = share?.slices[0];
    if (!share || !first) return;
    first.count -= 1;
    if (first.count === 0) share.slices.shift();
    share.usedSinceLease = true;
    if (this.#count(share) < Math.max(share.wanted, share.floor)) this.#refill(key, share);
  }

  /** Keeps at least `n` tokens of `key` held (renewed as they expire), used or not. */
  keep(key: string, limit: LeaseLimit, n: number): void {
    const share = this.#share(key, limit);
    share.floor = n;
    if (this.#count(share) < n) this.#refill(key, share);
  }

  /** An estimate of how long until `n` tokens are held: 0 when they are, Infinity when the burst is smaller. */
  waitMs(key: string, limit: LeaseLimit, n: number): number {
    const held = this.held(key, limit, n);
    if (held >= n) return 0;
    if (n > limit.burst) return Infinity;
    const share = this.#share(key, limit);
    const now = performance.now();
    // Without a refusal from the store, the lease asked for is a round trip away.
    if (share.nextTokenAt <= now) return 1;
    return Math.ceil(share.nextTokenAt - now + ((n - held - 1) * 1000) / this.#rate(limit));
  }

  /** Resolves once `n` tokens of `key` are held or the store has refused them for now: a cold share's round trip. */
  async settled(key: string, limit: LeaseLimit, n: number): Promise<void> {
    if (this.held(key, limit, n) >= n) return;
    const share = this.#share(key, limit);
    if (share.retryAt > performance.now()) return;
    await new Promise<void>((resolve) => share.waiters.push(resolve));
  }

  /** Waits until a token of `key` is held and uses it. */
  async take(key: string, limit: LeaseLimit): Promise<void> {
    while (this.held(key, limit, 1) < 1) {
      const share = this.#share(key, limit);
      await new Promise<void>((resolve) => share.waiters.push(resolve));
    }
    this.use(key);
  }

  #rate(limit: LeaseLimit): number {
    const { windowMs, ttlMs } = this.#options;
    return (limit.perSecond * windowMs) / (windowMs + ttlMs);
  }

  #share(key: string, limit: LeaseLimit): Share {
    let share = this.#shares.get(key);
    if (!share) {
      share = {
        limit,
        slices: [],
        expired: 0,
        wanted: 0,
        floor: 0,
        usedSinceLease: false,
        exchanging: false,
        nextTokenAt: 0,
        retryAt: 0,
        waiters: [],
        timer: undefined,
      };
      this.#shares.set(key, share);
    }
    return share;
  }

  /** Tokens held; expired slices move to `expired`. */
  #count(share: Share): number {
    const now = performance.now();
    let held = 0;
    let lapsed = false;
    for (const slice of share.slices) {
      if (slice.expiresAt > now) held += slice.count;
      else {
        share.expired += slice.count;
        lapsed = true;
      }
    }
    // Every Slack call and Discord request counts its share: a new list only when a slice lapsed.
    if (lapsed) share.slices = share.slices.filter((slice) => slice.expiresAt > now);
    return held;
  }

  #refill(key: string, share: Share): void {
    if (share.exchanging) return;
    const held = this.#count(share);
    const target = Math.max(share.wanted, share.floor);
    const now = performance.now();
    const short = held < target && share.retryAt <= now;
    if (!short && share.expired === 0) {
      this.#schedule(key, share);
      return;
    }
    // Callers in want of calls get a slice ahead (a quarter of the burst); reservations alone renew just themselves.
    const ahead = share.wanted > held ? Math.ceil(share.limit.burst / 4) : 0;
    const want = short ? Math.min(Math.floor(share.limit.burst), Math.max(target - held, ahead)) : 0;
    void this.#exchange(key, share, want);
  }

  async #exchange(key: string, share: Share, want: number): Promise<void> {
    share.exchanging = true;
    share.usedSinceLease = false;
    const giveBack = share.expired;
    share.expired = 0;
    // Counted from the request, not the answer: a token is never used later than ttl after the store granted it.
    const startedAt = performance.now();
    const exchange = { capacity: share.limit.burst, refillPerSecond: this.#rate(share.limit), giveBack, want };
    const { granted, retryAfterMs } = await this.#exchangeSomewhere(key, exchange);
    share.exchanging = false;
    if (granted > 0) share.slices.push({ count: granted, expiresAt: startedAt + this.#options.ttlMs });
    if (want > 0) this.#options.onLease?.(granted < want ? 'short' : 'granted');
    const now = performance.now();
    share.nextTokenAt = granted < want ? now + retryAfterMs : 0;
    share.retryAt = granted < want ? now + Math.min(retryAfterMs, this.#options.ttlMs) : 0;
    for (const wake of share.waiters.splice(0)) wake();
    this.#schedule(key, share);
  }

  async #exchangeSomewhere(key: string, exchange: TokenExchange): Promise<TokenExchangeResult> {
    const { store, logger, prefix } = this.#options;
    if (performance.now() >= this.#storeDownUntil) {
      try {
        const result = await store.exchangeTokens(prefix + key, exchange);
        if (this.#storeDownUntil > 0) {
          this.#storeDownUntil = 0;
          this.#local.clear();
          logger.info({ prefix }, 'rate budgets: shared through the store again');
        }
        return result;
      } catch (error) {
        if (this.#storeDownUntil === 0) {
          logger.warn({ err: error, prefix }, 'rate budgets: store unreachable, counting in this process alone');
        }
        this.#storeDownUntil = performance.now() + STORE_RETRY_MS;
      }
    }
    const { state, result } = exchangeWithBucket(this.#local.get(key), exchange, Date.now());
    this.#local.set(key, state);
    return result;
  }

  /** Wakes at the next expiry (or, while short, when the store may have tokens again); forgets an idle share. */
  #schedule(key: string, share: Share): void {
    clearTimeout(share.timer);
    share.timer = undefined;
    const held = this.#count(share);
    const now = performance.now();
    const times = share.slices.map((slice) => slice.expiresAt);
    // A timer may fire a little before its time: a retry due is kept until it has run.
    if (held < Math.max(share.wanted, share.floor) && share.retryAt > 0) times.push(share.retryAt);
    if (share.expired > 0 && !share.exchanging) times.push(now);
    if (times.length === 0) {
      if (share.expired === 0 && share.floor === 0 && share.waiters.length === 0 && !share.exchanging) this.#shares.delete(key);
      return;
    }
    share.timer = setTimeout(() => this.#wake(key, share), Math.max(0, Math.min(...times) - now));
    share.timer.unref();
  }

  #wake(key: string, share: Share): void {
    share.timer = undefined;
    this.#count(share);
    if (!share.usedSinceLease && share.waiters.length === 0) share.wanted = 0;
    this.#refill(key, share);
  }
}
