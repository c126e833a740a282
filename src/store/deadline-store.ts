import type { Keyv } from 'keyv';
import type { Logger } from '../log/logger.ts';
import type {
  CounterIncrement,
  MessageListener,
  ScoredMember,
  Store,
  StoreKind,
  TokenBucketOptions,
  TokenBucketResult,
  Unsubscribe,
} from './store.ts';
import type { TokenExchange, TokenExchangeResult } from './token-bucket.ts';
import { StoreUnavailableError } from './store-unavailable-error.ts';

export interface DeadlineOptions {
  /** How long any one call may take. */
  timeoutMs: number;
  logger?: Logger;
}

/**
 * A Store whose every call settles within `timeoutMs`: a call that takes longer, or that the backend fails
 * (connection lost, server gone), rejects with StoreUnavailableError and is logged once. Bad arguments
 * (RangeError, TypeError) are the caller's and pass through unchanged. A call that times out may still
 * complete in the backend later; its result is dropped.
 */
export class DeadlineStore implements Store {
  readonly #inner: Store;
  readonly #timeoutMs: number;
  readonly #logger: Logger | undefined;

  constructor(inner: Store, options: DeadlineOptions) {
    this.#inner = inner;
    this.#timeoutMs = options.timeoutMs;
    this.#logger = options.logger;
  }

  get kind(): StoreKind {
    return this.#inner.kind;
  }

  get keyv(): Keyv {
    return this.#inner.keyv;
  }

  get<T>(key: string): Promise<T | undefined> {
    return this.#within('get', () => this.#inner.get<T>(key));
  }

  set(key: string, value: unknown, ttlMs?: number): Promise<void> {
    return this.#within('set', () => this.#inner.set(key, value, ttlMs));
  }

  delete(key: string): Promise<boolean> {
    return this.#within('delete', () => this.#inner.delete(key));
  }

  acquireLock(key: string, ttlMs: number): Promise<string | null> {
    return this.#within('acquireLock', () => this.#inner.acquireLock(key, ttlMs));
  }

  renewLock(key: string, token: string, ttlMs: number): Promise<boolean> {
    return this.#within('renewLock', () => this.#inner.renewLock(key, token, ttlMs));
  }

  releaseLock(key: string, token: string): Promise<boolean> {
    return this.#within('releaseLock', () => this.#inner.releaseLock(key, token));
  }

  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    return this.#within('setIfAbsent', () => this.#inner.setIfAbsent(key, value, ttlMs));
  }

  takeTokens(bucketKey: string, options: TokenBucketOptions): Promise<TokenBucketResult> {
    return this.#within('takeTokens', () => this.#inner.takeTokens(bucketKey, options));
  }

  exchangeTokens(bucketKey: string, exchange: TokenExchange): Promise<TokenExchangeResult> {
    return this.#within('exchangeTokens', () => this.#inner.exchangeTokens(bucketKey, exchange));
  }

  incrementBy(key: string, n: number, ttlMs?: number): Promise<number> {
    return this.#within('incrementBy', () => this.#inner.incrementBy(key, n, ttlMs));
  }

  incrementMany(increments: readonly CounterIncrement[]): Promise<void> {
    return this.#within('incrementMany', () => this.#inner.incrementMany(increments));
  }

  readCounters(keys: readonly string[]): Promise<number[]> {
    return this.#within('readCounters', () => this.#inner.readCounters(keys));
  }

  sortedAdd(set: string, member: string, score: number): Promise<void> {
    return this.#within('sortedAdd', () => this.#inner.sortedAdd(set, member, score));
  }

  sortedRemove(set: string, member: string): Promise<boolean> {
    return this.#within('sortedRemove', () => this.#inner.sortedRemove(set, member));
  }

  sortedUpTo(set: string, maxScore: number, limit: number): Promise<ScoredMember[]> {
    return this.#within('sortedUpTo', () => this.#inner.sortedUpTo(set, maxScore, limit));
  }

  publish(channel: string, message: string): Promise<void> {
    return this.#within('publish', () => this.#inner.publish(channel, message));
  }

  subscribe(channel: string, listener: MessageListener): Promise<Unsubscribe> {
    return this.#within('subscribe', () => this.#inner.subscribe(channel, listener));
  }

  close(): Promise<void> {
    return this.#within('close', () => this.#inner.close());
  }

  #within<T>(operation: string, call: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const started = performance.now();
    const work = Promise.resolve().then(call);
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new StoreUnavailableError(operation, { cause: new Error(`no answer within ${this.#timeoutMs} ms`) })),
        this.#timeoutMs,
      );
    });
    // A result that arrives after the deadline has no one waiting for it.
    work.catch(() => {});
    return Promise.race([work, deadline])
      .catch((error: unknown) => {
        if (error instanceof RangeError || error instanceof TypeError) throw error;
        const unavailable = error instanceof StoreUnavailableError ? error : new StoreUnavailableError(operation, { cause: error });
        this.#logger?.warn(
          {
            err: unavailable.cause,
            store: this.#inner.kind,
            operation,
            timeoutMs: this.#timeoutMs,
            elapsedMs: Math.round(performance.now() - started),
          },
          'store call failed',
        );
        throw unavailable;
      })
      .finally(() => clearTimeout(timer));
  }
}
