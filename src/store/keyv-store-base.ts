import type { Keyv } from 'keyv';
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

/** The key-value half of a Store, shared by every backend: plain delegation to Keyv. */
export abstract class KeyvStoreBase implements Store {
  abstract readonly kind: StoreKind;
  readonly keyv: Keyv;

  constructor(keyv: Keyv) {
    this.keyv = keyv;
    // Keyv reports backend failures as events; a store that cannot read or write must fail loudly instead.
    keyv.throwOnErrors = true;
  }

  get<T>(key: string): Promise<T | undefined> {
    return this.keyv.get<T>(key);
  }

  async set(key: string, value: unknown, ttlMs?: number): Promise<void> {
    await this.keyv.set(key, value, ttlMs);
  }

  delete(key: string): Promise<boolean> {
    return this.keyv.delete(key);
  }

  abstract acquireLock(key: string, ttlMs: number): Promise<string | null>;
  abstract renewLock(key: string, token: string, ttlMs: number): Promise<boolean>;
  abstract releaseLock(key: string, token: string): Promise<boolean>;
  abstract setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  abstract takeTokens(bucketKey: string, options: TokenBucketOptions): Promise<TokenBucketResult>;
  abstract incrementBy(key: string, n: number, ttlMs?: number): Promise<number>;
  abstract incrementMany(increments: readonly CounterIncrement[]): Promise<void>;
  abstract readCounters(keys: readonly string[]): Promise<number[]>;
  abstract sortedAdd(set: string, member: string, score: number): Promise<void>;
  abstract sortedRemove(set: string, member: string): Promise<boolean>;
  abstract sortedUpTo(set: string, maxScore: number, limit: number): Promise<ScoredMember[]>;
  abstract publish(channel: string, message: string): Promise<void>;
  abstract subscribe(channel: string, listener: MessageListener): Promise<Unsubscribe>;
  abstract close(): Promise<void>;
}
