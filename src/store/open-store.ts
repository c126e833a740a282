import { fileURLToPath } from 'node:url';
import { defaults } from '../config/defaults.ts';
import { loadPackage } from '../load-package.ts';
import type { Logger } from '../log/logger.ts';
import { DeadlineStore } from './deadline-store.ts';
import { MemoryStore } from './memory-store.ts';
import { SqliteStore } from './sqlite-store.ts';
import type { Store } from './store.ts';

/**
 * Opens the store named by STORE_URL:
 * - `sqlite://PATH` — a file (relative paths from the working directory; `sqlite:///abs/path` is absolute;
 *   `sqlite://:memory:` is a private in-memory database); its directory is created on first run;
 * - `redis://HOST:PORT[/DB]` or `rediss://…` — a Redis server, shared by every instance;
 * - `memory://` — this process only, lost on exit.
 * The Redis client (@keyv/redis) is loaded only for a Redis store. Every call of the store returned settles
 * within `timeoutMs` (STORE_TIMEOUT_MS), failing with StoreUnavailableError past it or when the backend fails.
 */
export async function openStore(url: string, options: { timeoutMs?: number; logger?: Logger } = {}): Promise<Store> {
  const { timeoutMs = defaults.storeTimeoutMs, logger } = options;
  return new DeadlineStore(await openBackend(url), { timeoutMs, logger });
}

async function openBackend(url: string): Promise<Store> {
  if (url.startsWith('memory:')) return new MemoryStore();
  if (url.startsWith('redis:') || url.startsWith('rediss:')) {
    const { RedisStore } = await loadPackage('@keyv/redis', () => import('./redis-store.ts'));
    return RedisStore.connect(url);
  }
  if (url.startsWith('sqlite:')) return new SqliteStore(sqlitePath(url));
  throw new RangeError(`STORE_URL must be sqlite://PATH, redis://HOST:PORT or memory:// (got ${JSON.stringify(url)})`);
}

export function sqlitePath(url: string): string {
  const rest = url.slice('sqlite:'.length);
  if (rest.startsWith('///')) return fileURLToPath(`file://${rest.slice(2)}`);
  const path = rest.startsWith('//') ? rest.slice(2) : rest;
  if (path === '') throw new RangeError('STORE_URL sqlite:// needs a file path, e.g. sqlite://./data/herald.sqlite');
  return decodeURIComponent(path);
}
