import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { MemoryStore } from '../../src/store/memory-store.ts';
import { RedisStore } from '../../src/store/redis-store.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { ownRedisDb, redisDbUrl } from '../../bench/load/redis-db.ts';

export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface Backend {
  name: 'memory' | 'sqlite' | 'redis';
  /** Why this backend's tests are skipped, when they are. */
  skip?: string;
  /** A fresh, empty store (for Redis: a fresh key prefix is up to the caller). */
  open(): Promise<Store>;
  /** A second handle on the same data as `store` (another bot instance), when the backend has one. */
  openTwin?(store: Store): Promise<Store>;
}

/** Whether a TCP server answers at the URL's host and port (a Redis server, for the suites that need one). */
export function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 6379), timeout: 500 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Memory and SQLite always; Redis when a server answers at REDIS_URL, otherwise listed with the reason. */
export async function storeBackends(): Promise<Backend[]> {
  const redisUp = await reachable(redisUrl);
  return [
    { name: 'memory', open: async () => new MemoryStore() },
    {
      name: 'sqlite',
      open: async () => new SqliteStore(join(tempDir(), 'herald.sqlite')),
      openTwin: async (store) => new SqliteStore((store as SqliteStore).path),
    },
    {
      name: 'redis',
      ...(!redisUp && { skip: `no redis-server reachable at ${redisUrl} (set REDIS_URL)` }),
      open: () => RedisStore.connect(redisUrl),
      openTwin: () => RedisStore.connect(redisUrl),
    },
  ];
}

const dirs: string[] = [];

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'herald-store-'));
  dirs.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * The URL of Redis database `index` on the REDIS_URL server, emptied: for suites whose instances sweep every key of a
 * family (replies left unfinished), which other suites running at the same time on the server must not meet.
 */
export async function emptyRedisDatabase(index: number): Promise<string> {
  const url = redisDbUrl(redisUrl, index);
  await (await ownRedisDb(url)).close();
  return url;
}

/** Keys unique to one test, so runs sharing a Redis server never meet. */
export function uniqueKey(name: string): string {
  return `test:${randomUUID()}:${name}`;
}

/**
 * Opens a fresh store of `backend` before each test of the suite (handed to `use`) and closes it after, skipping the
 * test where the backend is unavailable. Returns `track`, which closes another handle (a twin) after the test too.
 */
export function storePerTest(backend: Backend, use: (store: Store) => void): (store: Store) => Store {
  const opened: Store[] = [];
  beforeEach(async (context) => {
    if (backend.skip) context.skip(backend.skip);
    const store = await backend.open();
    opened.push(store);
    use(store);
  });
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
  });
  return (store) => {
    opened.push(store);
    return store;
  };
}
