import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { Keyv } from 'keyv';
import { KeyvStoreBase } from './keyv-store-base.ts';
import { LocalChannels } from './local-channels.ts';
import { NodeSqliteKeyvAdapter } from './sqlite-keyv-adapter.ts';
import { checkScore } from './sorted-set.ts';
import type { CounterIncrement, MessageListener, ScoredMember, Store, TokenBucketOptions, TokenBucketResult, Unsubscribe } from './store.ts';
import { bucketIdleTtlMs, checkBucketOptions, exchangeWithBucket, takeFromBucket, type BucketState, type TokenExchange } from './token-bucket.ts';

const PURGE_EVERY_MS = 60_000;

/**
 * A Store in one SQLite file (node:sqlite). Several processes may share the file: every atomic operation
 * is a single statement or an IMMEDIATE transaction, and writers wait for each other (busy_timeout).
 * Rows of the `herald_atomic` table carry their own expiry; an expired row counts as absent.
 */
export class SqliteStore extends KeyvStoreBase implements Store {
  readonly kind = 'sqlite';
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #adapter: NodeSqliteKeyvAdapter;
  readonly #sql: Record<
    | 'insertIfAbsent'
    | 'renew'
    | 'release'
    | 'readBucket'
    | 'writeBucket'
    | 'increment'
    | 'readCounter'
    | 'purge'
    | 'sortedAdd'
    | 'sortedRemove'
    | 'sortedUpTo',
    StatementSync
  >;
  #lastPurgeMs = 0;
  /** One instance per file is assumed for publish/subscribe: messages stay in this process. */
  readonly #channels = new LocalChannels();

  /**
   * `path` is a file path or `:memory:`. A new file is readable by its owner only (0600), as are the directories
   * created for it (0700) and the journal files SQLite makes beside it (which take the file's mode).
   */
  constructor(path: string) {
    if (path !== ':memory:') {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      closeSync(openSync(path, 'a', 0o600));
    }
    const db = new DatabaseSync(path);
    db.exec('PRAGMA busy_timeout = 5000');
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    const adapter = new NodeSqliteKeyvAdapter(db, { url: `sqlite://${path}` });
    super(new Keyv({ store: adapter, namespace: 'herald' }));
    this.path = path;
    this.#db = db;
    this.#adapter = adapter;
    db.exec('CREATE TABLE IF NOT EXISTS herald_atomic (key TEXT PRIMARY KEY, value TEXT NOT NULL, num REAL NOT NULL, expires INTEGER)');
    db.exec('CREATE TABLE IF NOT EXISTS herald_sorted (name TEXT NOT NULL, member TEXT NOT NULL, score REAL NOT NULL, PRIMARY KEY (name, member))');
    db.exec('CREATE INDEX IF NOT EXISTS herald_sorted_by_score ON herald_sorted (name, score, member)');
    const live = '(herald_atomic.expires IS NULL OR herald_atomic.expires > ?)';
    this.#sql = {
      // Inserts, or replaces a row that has expired; RETURNING yields a row only when this call wrote.
      insertIfAbsent: db.prepare(
        `INSERT INTO herald_atomic (key, value, num, expires) VALUES (?, ?, 0, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, num = 0, expires = excluded.expires
         WHERE NOT ${live} RETURNING key`,
      ),
      renew: db.prepare(`UPDATE herald_atomic SET expires = ? WHERE key = ? AND value = ? AND ${live}`),
      release: db.prepare(`DELETE FROM herald_atomic WHERE key = ? AND value = ? AND ${live}`),
      readBucket: db.prepare(`SELECT value FROM herald_atomic WHERE key = ? AND ${live}`),
      writeBucket: db.prepare(
        `INSERT INTO herald_atomic (key, value, num, expires) VALUES (?, ?, 0, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
      ),
      increment: db.prepare(
        `INSERT INTO herald_atomic (key, value, num, expires) VALUES (?1, '', ?2, ?3)
         ON CONFLICT (key) DO UPDATE SET
           num = CASE WHEN ${live.replace('?', '?4')} THEN herald_atomic.num + excluded.num ELSE excluded.num END,
           expires = CASE WHEN ${live.replace('?', '?4')} THEN herald_atomic.expires ELSE excluded.expires END
         RETURNING num`,
      ),
      readCounter: db.prepare(`SELECT num FROM herald_atomic WHERE key = ? AND ${live}`),
      purge: db.prepare('DELETE FROM herald_atomic WHERE expires IS NOT NULL AND expires <= ?'),
      sortedAdd: db.prepare(
        'INSERT INTO herald_sorted (name, member, score) VALUES (?, ?, ?) ON CONFLICT (name, member) DO UPDATE SET score = excluded.score',
      ),
      sortedRemove: db.prepare('DELETE FROM herald_sorted WHERE name = ? AND member = ?'),
      sortedUpTo: db.prepare('SELECT member, score FROM herald_sorted WHERE name = ? AND score <= ? ORDER BY score, member LIMIT ?'),
    };
  }

  async acquireLock(key: string, ttlMs: number): Promise<string | null> {
    const token = randomUUID();
    return (await this.setIfAbsent(key, token, ttlMs)) ? token : null;
  }

  async renewLock(key: string, token: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    return Number(this.#sql.renew.run(now + ttlMs, key, token, now).changes) > 0;
  }

  async releaseLock(key: string, token: string): Promise<boolean> {
    return Number(this.#sql.release.run(key, token, Date.now()).changes) > 0;
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    this.#purgeNowAndThen();
    const now = Date.now();
    return this.#sql.insertIfAbsent.get(key, value, now + ttlMs, now) !== undefined;
  }

  async takeTokens(bucketKey: string, options: TokenBucketOptions): Promise<TokenBucketResult> {
    const checked = checkBucketOptions(options);
    return this.#withBucket(bucketKey, bucketIdleTtlMs(checked), (previous, now) => takeFromBucket(previous, checked, now));
  }

  async exchangeTokens(bucketKey: string, exchange: TokenExchange) {
    return this.#withBucket(bucketKey, bucketIdleTtlMs(exchange), (previous, now) => exchangeWithBucket(previous, exchange, now));
  }

  async incrementBy(key: string, n: number, ttlMs?: number): Promise<number> {
    const now = Date.now();
    const row = this.#sql.increment.get(key, n, ttlMs ? now + ttlMs : null, now) as { num: number };
    return row.num;
  }

  async incrementMany(increments: readonly CounterIncrement[]): Promise<void> {
    this.#transaction(() => {
      const now = Date.now();
      for (const { key, n, ttlMs } of increments) this.#sql.increment.get(key, n, ttlMs ? now + ttlMs : null, now);
    });
  }

  async readCounters(keys: readonly string[]): Promise<number[]> {
    const now = Date.now();
    return keys.map((key) => (this.#sql.readCounter.get(key, now) as { num: number } | undefined)?.num ?? 0);
  }

  async sortedAdd(set: string, member: string, score: number): Promise<void> {
    checkScore(score);
    this.#sql.sortedAdd.run(set, member, score);
  }

  async sortedRemove(set: string, member: string): Promise<boolean> {
    return Number(this.#sql.sortedRemove.run(set, member).changes) > 0;
  }

  async sortedUpTo(set: string, maxScore: number, limit: number): Promise<ScoredMember[]> {
    if (limit <= 0) return [];
    const rows = this.#sql.sortedUpTo.all(set, maxScore, limit) as Array<{ member: string; score: number }>;
    return rows.map(({ member, score }) => ({ member, score }));
  }

  async publish(channel: string, message: string): Promise<void> {
    this.#channels.publish(channel, message);
  }

  async subscribe(channel: string, listener: MessageListener): Promise<Unsubscribe> {
    return this.#channels.subscribe(channel, listener);
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }

  /** Reads a bucket's state, applies `step` and writes the new state back, in one transaction. */
  #withBucket<R>(
    bucketKey: string,
    idleTtlMs: number,
    step: (previous: BucketState | undefined, nowMs: number) => { state: BucketState; result: R },
  ): R {
    return this.#transaction(() => {
      const now = Date.now();
      const row = this.#sql.readBucket.get(bucketKey, now) as { value: string } | undefined;
      const { state, result } = step(row ? (JSON.parse(row.value) as BucketState) : undefined, now);
      this.#sql.writeBucket.run(bucketKey, JSON.stringify(state), now + idleTtlMs);
      return result;
    });
  }

  #transaction<T>(work: () => T): T {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      this.#db.exec('COMMIT');
      return result;
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  /** Expired rows count as absent already; this only keeps the file from growing with them. */
  #purgeNowAndThen(): void {
    const now = Date.now();
    if (now - this.#lastPurgeMs < PURGE_EVERY_MS) return;
    this.#lastPurgeMs = now;
    this.#sql.purge.run(now);
    this.#adapter.purgeExpired(now);
  }
}
