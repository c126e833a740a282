import { EventEmitter } from 'node:events';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { KeyvStoreAdapter, StoredData } from 'keyv';

/**
 * A Keyv storage adapter over Node's built-in SQLite (node:sqlite), so no native sqlite3 module is
 * built. Keyv puts the expiry inside the serialized value and checks it on read; the `expires` column
 * repeats it so expired rows can be deleted in bulk (`purgeExpired`).
 */
export class NodeSqliteKeyvAdapter extends EventEmitter implements KeyvStoreAdapter {
  /** `dialect` tells Keyv this adapter can iterate. */
  opts: { dialect: 'sqlite'; url: string; table: string; [option: string]: unknown };
  namespace?: string;
  readonly #db: DatabaseSync;
  readonly #statements: {
    get: StatementSync;
    set: StatementSync;
    delete: StatementSync;
    clearAll: StatementSync;
    clearNamespace: StatementSync;
    iterate: StatementSync;
    purge: StatementSync;
  };

  constructor(db: DatabaseSync, options: { url: string; table?: string }) {
    super();
    const table = options.table ?? 'keyv';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new RangeError(`invalid table name ${JSON.stringify(table)}`);
    this.opts = { dialect: 'sqlite', url: options.url, table };
    this.#db = db;
    db.exec(`CREATE TABLE IF NOT EXISTS ${table} (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires INTEGER)`);
    db.exec(`CREATE INDEX IF NOT EXISTS ${table}_expires ON ${table} (expires) WHERE expires IS NOT NULL`);
    this.#statements = {
      get: db.prepare(`SELECT value FROM ${table} WHERE key = ? AND (expires IS NULL OR expires > ?)`),
      set: db.prepare(
        `INSERT INTO ${table} (key, value, expires) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
      ),
      delete: db.prepare(`DELETE FROM ${table} WHERE key = ?`),
      clearAll: db.prepare(`DELETE FROM ${table}`),
      clearNamespace: db.prepare(`DELETE FROM ${table} WHERE substr(key, 1, length(?1)) = ?1`),
      iterate: db.prepare(`SELECT key, value FROM ${table} WHERE substr(key, 1, length(?1)) = ?1 AND (expires IS NULL OR expires > ?2) ORDER BY key`),
      purge: db.prepare(`DELETE FROM ${table} WHERE expires IS NOT NULL AND expires <= ?`),
    };
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    const row = this.#statements.get.get(key, Date.now()) as { value: string } | undefined;
    return row?.value as StoredData<Value> | undefined;
  }

  async getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    return Promise.all(keys.map((key) => this.get<Value>(key)));
  }

  async set(key: string, value: unknown, ttl?: number): Promise<boolean> {
    const expires = typeof ttl === 'number' && ttl > 0 ? Date.now() + ttl : null;
    this.#statements.set.run(key, String(value), expires);
    return true;
  }

  async setMany(values: Array<{ key: string; value: unknown; ttl?: number }>): Promise<void> {
    this.#transaction(() => {
      for (const { key, value, ttl } of values) {
        const expires = typeof ttl === 'number' && ttl > 0 ? Date.now() + ttl : null;
        this.#statements.set.run(key, String(value), expires);
      }
    });
  }

  async delete(key: string): Promise<boolean> {
    return Number(this.#statements.delete.run(key).changes) > 0;
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    let deleted = false;
    this.#transaction(() => {
      for (const key of keys) if (Number(this.#statements.delete.run(key).changes) > 0) deleted = true;
    });
    return deleted;
  }

  async has(key: string): Promise<boolean> {
    return (await this.get(key)) !== undefined;
  }

  async hasMany(keys: string[]): Promise<boolean[]> {
    return Promise.all(keys.map((key) => this.has(key)));
  }

  /** Deletes this adapter's namespace, or every row when it has none. */
  async clear(): Promise<void> {
    if (this.namespace) this.#statements.clearNamespace.run(`${this.namespace}:`);
    else this.#statements.clearAll.run();
  }

  async *iterator<Value>(namespace?: string): AsyncGenerator<Array<string | Awaited<Value> | undefined>, void> {
    const prefix = namespace ? `${namespace}:` : '';
    // Rows are read up front: the caller may delete entries while iterating.
    const rows = this.#statements.iterate.all(prefix, Date.now()) as Array<{ key: string; value: string }>;
    for (const row of rows) yield [row.key, row.value as Awaited<Value>];
  }

  /** Deletes rows whose expiry has passed; returns how many. */
  purgeExpired(nowMs = Date.now()): number {
    return Number(this.#statements.purge.run(nowMs).changes);
  }

  async disconnect(): Promise<void> {
    // The database handle belongs to the owner that passed it in.
  }

  #transaction(work: () => void): void {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      work();
      this.#db.exec('COMMIT');
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    }
  }
}
