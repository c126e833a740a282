import { randomUUID } from 'node:crypto';
import { Keyv } from 'keyv';
import { KeyvStoreBase } from './keyv-store-base.ts';
import { LocalChannels } from './local-channels.ts';
import type { CounterIncrement, MessageListener, ScoredMember, Store, TokenBucketOptions, TokenBucketResult, Unsubscribe } from './store.ts';
import { checkScore } from './sorted-set.ts';
import { bucketIdleTtlMs, checkBucketOptions, exchangeWithBucket, takeFromBucket, type BucketState, type TokenExchange } from './token-bucket.ts';

interface Entry {
  value: string;
  num: number;
  bucket?: BucketState;
  expiresAt: number;
}

/** Everything in this process's memory: for tests and single-instance runs that need no persistence. */
export class MemoryStore extends KeyvStoreBase implements Store {
  readonly kind = 'memory';
  readonly #entries = new Map<string, Entry>();
  #putsSinceSweep = 0;
  readonly #channels = new LocalChannels();
  readonly #sorted = new Map<string, Map<string, number>>();

  constructor() {
    super(new Keyv({ store: new Map(), namespace: 'herald' }));
  }

  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt <= Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #put(key: string, entry: Omit<Entry, 'expiresAt'>, ttlMs: number | undefined): void {
    this.#entries.set(key, { ...entry, expiresAt: ttlMs ? Date.now() + ttlMs : Infinity });
    // Expired entries are otherwise dropped only when read again; dedupe keys never are.
    if (++this.#putsSinceSweep >= 1000) {
      this.#putsSinceSweep = 0;
      const now = Date.now();
      for (const [k, e] of this.#entries) if (e.expiresAt <= now) this.#entries.delete(k);
    }
  }

  async acquireLock(key: string, ttlMs: number): Promise<string | null> {
    const token = randomUUID();
    return (await this.setIfAbsent(key, token, ttlMs)) ? token : null;
  }

  async renewLock(key: string, token: string, ttlMs: number): Promise<boolean> {
    const entry = this.#live(key);
    if (entry?.value !== token) return false;
    entry.expiresAt = Date.now() + ttlMs;
    return true;
  }

  async releaseLock(key: string, token: string): Promise<boolean> {
    if (this.#live(key)?.value !== token) return false;
    return this.#entries.delete(key);
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    if (this.#live(key)) return false;
    this.#put(key, { value, num: 0 }, ttlMs);
    return true;
  }

  async takeTokens(bucketKey: string, options: TokenBucketOptions): Promise<TokenBucketResult> {
    const checked = checkBucketOptions(options);
    const { state, result } = takeFromBucket(this.#live(bucketKey)?.bucket, checked, Date.now());
    this.#put(bucketKey, { value: '', num: 0, bucket: state }, bucketIdleTtlMs(checked));
    return result;
  }

  async exchangeTokens(bucketKey: string, exchange: TokenExchange) {
    const { state, result } = exchangeWithBucket(this.#live(bucketKey)?.bucket, exchange, Date.now());
    this.#put(bucketKey, { value: '', num: 0, bucket: state }, bucketIdleTtlMs(exchange));
    return result;
  }

  async incrementBy(key: string, n: number, ttlMs?: number): Promise<number> {
    const entry = this.#live(key);
    if (entry) {
      entry.num += n;
      return entry.num;
    }
    this.#put(key, { value: '', num: n }, ttlMs);
    return n;
  }

  async incrementMany(increments: readonly CounterIncrement[]): Promise<void> {
    for (const { key, n, ttlMs } of increments) await this.incrementBy(key, n, ttlMs);
  }

  async readCounters(keys: readonly string[]): Promise<number[]> {
    return keys.map((key) => this.#live(key)?.num ?? 0);
  }

  async sortedAdd(set: string, member: string, score: number): Promise<void> {
    checkScore(score);
    const members = this.#sorted.get(set) ?? new Map<string, number>();
    members.set(member, score);
    this.#sorted.set(set, members);
  }

  async sortedRemove(set: string, member: string): Promise<boolean> {
    const members = this.#sorted.get(set);
    if (!members?.delete(member)) return false;
    if (members.size === 0) this.#sorted.delete(set);
    return true;
  }

  async sortedUpTo(set: string, maxScore: number, limit: number): Promise<ScoredMember[]> {
    const found: ScoredMember[] = [];
    for (const [member, score] of this.#sorted.get(set) ?? []) if (score <= maxScore) found.push({ member, score });
    // Ties in lexical order of the member, as Redis orders them.
    return found.sort((a, b) => a.score - b.score || (a.member < b.member ? -1 : a.member > b.member ? 1 : 0)).slice(0, Math.max(0, limit));
  }

  async publish(channel: string, message: string): Promise<void> {
    this.#channels.publish(channel, message);
  }

  async subscribe(channel: string, listener: MessageListener): Promise<Unsubscribe> {
    return this.#channels.subscribe(channel, listener);
  }

  async close(): Promise<void> {
    this.#entries.clear();
    this.#sorted.clear();
    await this.keyv.disconnect();
  }
}
