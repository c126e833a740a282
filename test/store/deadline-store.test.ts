import type { ChildProcess } from 'node:child_process';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import { HeraldError } from '../../src/errors.ts';
import { DeadlineStore } from '../../src/store/deadline-store.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { StoreUnavailableError } from '../../src/store/store-unavailable-error.ts';
import { freePort, redisServerInstalled, startRedisServer, stopRedisServer } from './redis-server.ts';
import { uniqueKey } from './backends.ts';

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ level: 'info', secrets: [], destination }), lines };
}

/** A store whose backend never answers: every call stays pending forever. */
function silentStore(): Store {
  const inner = new MemoryStore();
  const never = () => new Promise<never>(() => {});
  return Object.assign(Object.create(inner) as Store, {
    get: never,
    set: never,
    delete: never,
    acquireLock: never,
    renewLock: never,
    releaseLock: never,
    setIfAbsent: never,
    takeTokens: never,
    exchangeTokens: never,
    incrementBy: never,
    incrementMany: never,
    readCounters: never,
  });
}

/** How long `call` takes to reject, and with what. */
async function rejection(call: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  try {
    await call();
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
  throw new Error('the call succeeded');
}

describe('store deadlines', () => {
  it('fails every call of a store that never answers with StoreUnavailableError at the deadline, and logs it', async () => {
    const { logger, lines } = capturingLogger();
    const store = new DeadlineStore(silentStore(), { timeoutMs: 150, logger });
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['get', () => store.get('k')],
      ['set', () => store.set('k', 1)],
      ['delete', () => store.delete('k')],
      ['acquireLock', () => store.acquireLock('k', 1000)],
      ['renewLock', () => store.renewLock('k', 't', 1000)],
      ['releaseLock', () => store.releaseLock('k', 't')],
      ['setIfAbsent', () => store.setIfAbsent('k', 'v', 1000)],
      ['takeTokens', () => store.takeTokens('k', { capacity: 1, refillPerSecond: 1 })],
      ['exchangeTokens', () => store.exchangeTokens('k', { capacity: 1, refillPerSecond: 1, giveBack: 0, want: 1 })],
      ['incrementBy', () => store.incrementBy('k', 1)],
      ['incrementMany', () => store.incrementMany([{ key: 'k', n: 1 }])],
      ['readCounters', () => store.readCounters(['k'])],
    ];
    const results = await Promise.all(calls.map(([, call]) => rejection(call)));
    for (const { error, ms } of results) {
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(error).toBeInstanceOf(HeraldError);
      expect((error as StoreUnavailableError).code).toBe('store_unavailable');
      expect((error as Error).message).toMatch(/^Herald's memory is unreachable right now; try again in a minute\.$/);
      expect(ms).toBeGreaterThanOrEqual(140);
      expect(ms).toBeLessThan(2000);
    }
    expect(results.map(({ error }) => (error as StoreUnavailableError).operation)).toEqual(calls.map(([name]) => name));
    const logged = lines.filter((line) => line.msg === 'store call failed');
    expect(logged.map((line) => line.operation)).toEqual(calls.map(([name]) => name));
    expect(logged[0]).toMatchObject({ level: 40, store: 'memory', timeoutMs: 150 });
  });

  it('passes a caller mistake through unchanged and answers normally when the backend does', async () => {
    const store = new DeadlineStore(new MemoryStore(), { timeoutMs: 1000 });
    await expect(store.takeTokens('k', { capacity: 0, refillPerSecond: 1 })).rejects.toThrow(RangeError);
    await store.set('k', { a: 1 });
    expect(await store.get('k')).toEqual({ a: 1 });
    expect(store.kind).toBe('memory');
  });

  it('applies STORE_TIMEOUT_MS to every store openStore opens', async () => {
    const store = await openStore('memory://', { timeoutMs: 1000 });
    expect(store).toBeInstanceOf(DeadlineStore);
    await store.close();
  });
});

describe.skipIf(!redisServerInstalled)('a Redis store while its server stops', () => {
  let server: ChildProcess | undefined;
  let store: Store | undefined;

  afterEach(async () => {
    if (server) server.kill('SIGCONT');
    await store?.close().catch(() => {});
    if (server) await stopRedisServer(server);
    server = undefined;
    store = undefined;
  });

  it('fails within the deadline while the server hangs or is gone, then works again once it is back', async () => {
    const port = await freePort();
    server = await startRedisServer(port);
    const { logger, lines } = capturingLogger();
    store = await openStore(`redis://127.0.0.1:${port}`, { timeoutMs: 800, logger });
    const key = uniqueKey('outage');
    await store.set(key, 'before');
    expect(await store.get(key)).toBe('before');

    // Hung: the connection stays open and nothing comes back.
    server.kill('SIGSTOP');
    const hung = await rejection(() => store!.get(key));
    expect(hung.error).toBeInstanceOf(StoreUnavailableError);
    expect(hung.ms).toBeLessThan(2000);
    const hungLock = await rejection(() => store!.acquireLock(key, 1000));
    expect(hungLock.error).toBeInstanceOf(StoreUnavailableError);
    server.kill('SIGCONT');

    // Gone: calls fail without waiting for a server that is not there, and never read as "no such key".
    await stopRedisServer(server);
    for (const call of [
      () => store!.get(key),
      () => store!.setIfAbsent(key, 'v', 1000),
      () => store!.takeTokens(key, { capacity: 2, refillPerSecond: 1 }),
    ]) {
      const gone = await rejection(call);
      expect(gone.error).toBeInstanceOf(StoreUnavailableError);
      expect(gone.ms).toBeLessThan(400);
    }
    expect(lines.some((line) => line.msg === 'store call failed' && line.store === 'redis' && line.operation === 'get')).toBe(true);

    // Back: the client reconnects by itself.
    server = await startRedisServer(port);
    await vi.waitFor(() => store!.set(key, 'after'), { timeout: 15_000, interval: 200 });
    expect(await store.get(key)).toBe('after');
  });
});
