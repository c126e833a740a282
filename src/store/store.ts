import type { Keyv } from 'keyv';
import type { TokenExchange, TokenExchangeResult } from './token-bucket.ts';

export type StoreKind = 'memory' | 'sqlite' | 'redis';

export interface TokenBucketOptions {
  /** Most tokens the bucket holds (the burst). */
  capacity: number;
  /** Tokens added back per second, continuously. */
  refillPerSecond: number;
  /** Tokens this call takes; 1 when omitted. */
  cost?: number;
}

export interface TokenBucketResult {
  allowed: boolean;
  /** Tokens left after this call (fractional while refilling). */
  remaining: number;
  /** When denied: how long until `cost` tokens are back; 0 when allowed. */
  retryAfterMs: number;
}

/** A member of a sorted set with its score (for schedules: a schedule id and when it is due, ms since the epoch). */
export interface ScoredMember {
  member: string;
  score: number;
}

export type MessageListener = (message: string) => void;
export type Unsubscribe = () => Promise<void>;

export interface CounterIncrement {
  key: string;
  n: number;
  /** Lifetime set when the counter is created; an existing counter keeps its expiry. */
  ttlMs?: number;
}

/**
 * Persistence for everything the engine keeps. Key-value data (history, settings) goes through Keyv;
 * the other operations are atomic in the backend itself, so they hold across bot instances that share
 * the same Redis server or SQLite file.
 */
export interface Store {
  readonly kind: StoreKind;
  /** The Keyv instance behind get/set/delete, for callers that want Keyv's own API. */
  readonly keyv: Keyv;

  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<boolean>;

  /** Takes the lock when it is free or expired; returns the token that owns it, or null when held. */
  acquireLock(key: string, ttlMs: number): Promise<string | null>;
  /** Extends a lock still owned by `token`; false when it expired or another owner took it. */
  renewLock(key: string, token: string, ttlMs: number): Promise<boolean>;
  /** Frees the lock only when `token` still owns it. */
  releaseLock(key: string, token: string): Promise<boolean>;

  /** Stores `value` only when the key is absent or expired; true when this call stored it. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;

  /** A token bucket that refills continuously; the check and the take are one atomic step. */
  takeTokens(bucketKey: string, options: TokenBucketOptions): Promise<TokenBucketResult>;
  /** The same bucket leased in slices (token-leases.ts): gives back, then grants what is there; one atomic step. */
  exchangeTokens(bucketKey: string, exchange: TokenExchange): Promise<TokenExchangeResult>;

  /** Adds `n` to a counter (created at 0) and returns the new value. */
  incrementBy(key: string, n: number, ttlMs?: number): Promise<number>;
  /** Several increments in one round trip / transaction. */
  incrementMany(increments: readonly CounterIncrement[]): Promise<void>;
  /** Current values of counters; 0 for missing or expired ones. */
  readCounters(keys: readonly string[]): Promise<number[]>;

  /** Puts `member` in the sorted set `set` at `score`, moving it there when it is already in. */
  sortedAdd(set: string, member: string, score: number): Promise<void>;
  /** Takes `member` out of `set`; true when it was in. */
  sortedRemove(set: string, member: string): Promise<boolean>;
  /** Up to `limit` members scored at most `maxScore`, lowest first; they stay in the set. */
  sortedUpTo(set: string, maxScore: number, limit: number): Promise<ScoredMember[]>;

  /** Sends `message` to every subscriber of `channel` in every instance sharing this store, this one included. */
  publish(channel: string, message: string): Promise<void>;
  /**
   * Calls `listener` with every message published on `channel` from the moment this resolves; it resolves to a
   * function that stops listening. Messages are not kept: one published with no subscriber is lost.
   */
  subscribe(channel: string, listener: MessageListener): Promise<Unsubscribe>;

  close(): Promise<void>;
}
