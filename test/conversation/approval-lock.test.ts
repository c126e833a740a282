import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConversationLocks, type Lease } from '../../src/conversation/conversation-lock.ts';
import type { Store } from '../../src/store/store.ts';
import { silentLogger } from '../helpers/logger.ts';
import { removeTempDirs, storeBackends, uniqueKey } from '../store/backends.ts';

const backends = await storeBackends();
afterAll(removeTempDirs);

describe.each(backends)('a conversation lock stepping aside for an approval, on $name', (backend) => {
  let store: Store;
  let twin: Store;
  const opened: Store[] = [];

  beforeEach(async (context) => {
    if (backend.skip) context.skip(backend.skip);
    store = await backend.open();
    twin = backend.openTwin ? await backend.openTwin(store) : store;
    opened.push(store, ...(twin === store ? [] : [twin]));
  });

  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
  });

  it('gives the store lock up while keeping its place: turns here and on another instance wait, shown waiting, until it is done', async () => {
    const key = uniqueKey('aside');
    const fast = { pollMinMs: 5, pollMaxMs: 20 };
    const here = new ConversationLocks(store, silentLogger, fast);
    const elsewhere = new ConversationLocks(twin, silentLogger, fast);
    const lease = await here.acquire(key);
    const takeAgain = await lease.stepAside(60_000);

    const free = await store.acquireLock(`lock:${key}`, 1000);
    expect(free).not.toBeNull();
    await store.releaseLock(`lock:${key}`, free!);

    const order: string[] = [];
    const waited = { here: false, elsewhere: false };
    const noted = (name: string) => (taken: Lease) => {
      order.push(name);
      return taken;
    };
    const next = here.acquire(key, { onWait: () => (waited.here = true) }).then(noted('next here'));
    const other = elsewhere.acquire(key, { onWait: () => (waited.elsewhere = true) }).then(noted('elsewhere'));
    await vi.waitFor(() => expect(waited).toEqual({ here: true, elsewhere: true }));

    await takeAgain();
    order.push('taken again');
    expect(await store.acquireLock(`lock:${key}`, 1000)).toBeNull();
    order.push('released');
    await lease.release();
    // Then both compete for the store lock, one after the other.
    const winner = await Promise.race([next, other]);
    await winner.release();
    for (const lease of await Promise.all([next, other])) if (lease !== winner) await lease.release();
    expect(order.slice(0, 2)).toEqual(['taken again', 'released']);
    expect(order.slice(2).sort()).toEqual(['elsewhere', 'next here']);
  });
});
