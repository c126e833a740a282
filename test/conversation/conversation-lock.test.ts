import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { ConversationLocks } from '../../src/conversation/conversation-lock.ts';
import { LockBusyError } from '../../src/errors.ts';
import type { Store } from '../../src/store/store.ts';
import { removeTempDirs, storeBackends, storePerTest, uniqueKey } from '../store/backends.ts';
import { silentLogger } from '../helpers/logger.ts';

const backends = await storeBackends();
afterAll(removeTempDirs);

describe.each(backends)('conversation lock on $name', (backend) => {
  let store: Store;
  const track = storePerTest(backend, (opened) => {
    store = opened;
  });

  it('serves waiters in the order they asked, one at a time', async () => {
    const locks = new ConversationLocks(store, silentLogger, { ttlMs: 5000 });
    const key = uniqueKey('order');
    const log: string[] = [];
    let inside = 0;
    await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const lease = await locks.acquire(key);
        inside += 1;
        expect(inside).toBe(1);
        log.push(`start ${i}`);
        await sleep(i === 0 ? 60 : 5);
        log.push(`end ${i}`);
        inside -= 1;
        await lease.release();
      }),
    );
    expect(log).toEqual(Array.from({ length: 6 }, (_, i) => [`start ${i}`, `end ${i}`]).flat());
  });

  it('tells a waiter it waits, and not the first caller', async () => {
    const locks = new ConversationLocks(store, silentLogger);
    const key = uniqueKey('wait');
    const waited: number[] = [];
    const first = await locks.acquire(key, { onWait: () => waited.push(1) });
    const second = locks.acquire(key, { onWait: () => waited.push(2) });
    await sleep(10);
    expect(waited).toEqual([2]);
    await first.release();
    await (await second).release();
  });

  it('a waiter that gives up keeps the order for the ones behind it', async () => {
    const locks = new ConversationLocks(store, silentLogger);
    const key = uniqueKey('abort');
    const first = await locks.acquire(key);
    const controller = new AbortController();
    const quitter = locks.acquire(key, { signal: controller.signal });
    const third = locks.acquire(key);
    controller.abort(new Error('user left'));
    await expect(quitter).rejects.toThrow('user left');
    let thirdIn = false;
    void third.then(() => {
      thirdIn = true;
    });
    await sleep(30);
    expect(thirdIn).toBe(false);
    await first.release();
    await (await third).release();
  });

  it('a cancelled ticket does not hold up the ones behind it', async () => {
    const locks = new ConversationLocks(store, silentLogger);
    const key = uniqueKey('cancel');
    const first = await locks.acquire(key);
    const skipped = locks.enqueue(key);
    const third = locks.acquire(key);
    skipped.cancel();
    await first.release();
    await (await third).release();
  });

  // Memory is private to one process, so only the shared backends run this.
  if (backend.openTwin) {
    it('waits for another instance holding the lock, then takes it', async () => {
      const twin = await backend.openTwin!(store);
      track(twin);
      const here = new ConversationLocks(store, silentLogger, { pollMinMs: 5, pollMaxMs: 20 });
      const there = new ConversationLocks(twin, silentLogger, { pollMinMs: 5, pollMaxMs: 20 });
      const key = uniqueKey('instances');
      const held = await there.acquire(key);
      let waited = false;
      const pending = here.acquire(key, { onWait: () => (waited = true) });
      await sleep(60);
      expect(waited).toBe(true);
      let acquired = false;
      void pending.then(() => (acquired = true));
      await sleep(20);
      expect(acquired).toBe(false);
      await held.release();
      await (await pending).release();
    });
  }

  it('renews the lock while a long reply runs, so nobody else gets in', async () => {
    const locks = new ConversationLocks(store, silentLogger, { ttlMs: 300, pollMinMs: 5, pollMaxMs: 10 });
    const key = uniqueKey('renew');
    const lease = await locks.acquire(key);
    await sleep(800);
    expect(lease.lost).toBe(false);
    expect(await store.acquireLock(`lock:${key}`, 1000)).toBeNull();
    await lease.release();
    expect(await store.acquireLock(`lock:${key}`, 1000)).toEqual(expect.any(String));
  });

  it('takes over the lock of a crashed holder once it expires', async () => {
    const key = uniqueKey('crash');
    await store.acquireLock(`lock:${key}`, 100);
    const locks = new ConversationLocks(store, silentLogger, { pollMinMs: 5, pollMaxMs: 20 });
    const started = Date.now();
    const lease = await locks.acquire(key);
    expect(Date.now() - started).toBeGreaterThanOrEqual(60);
    await lease.release();
  });

  it('gives up with a polite busy error after maxWaitMs', async () => {
    const key = uniqueKey('busy');
    await store.acquireLock(`lock:${key}`, 10_000);
    const locks = new ConversationLocks(store, silentLogger, { pollMinMs: 5, pollMaxMs: 10, maxWaitMs: 80 });
    const error = await locks.acquire(key).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockBusyError);
    expect((error as Error).message).toMatch(/^I'm still busy with earlier messages in this conversation/);
  });
});
