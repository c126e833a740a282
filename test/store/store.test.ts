import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.ts';
import { removeTempDirs, storeBackends, storePerTest, uniqueKey } from './backends.ts';

const backends = await storeBackends();

afterAll(removeTempDirs);

describe.each(backends)('$name store', (backend) => {
  let store: Store;
  const track = storePerTest(backend, (opened) => {
    store = opened;
  });

  async function twin(): Promise<Store> {
    return track(await backend.openTwin!(store));
  }

  it('keeps values of any JSON shape and Buffers, and forgets them after their TTL', async () => {
    const key = uniqueKey('kv');
    await store.set(key, { turns: [{ role: 'user', text: '你好' }], n: 1, raw: Buffer.from('hi') });
    expect(await store.get(key)).toEqual({ turns: [{ role: 'user', text: '你好' }], n: 1, raw: Buffer.from('hi') });
    await store.set(`${key}:short`, 'soon gone', 60);
    expect(await store.get(`${key}:short`)).toBe('soon gone');
    await sleep(90);
    expect(await store.get(`${key}:short`)).toBeUndefined();
    expect(await store.delete(key)).toBe(true);
    expect(await store.get(key)).toBeUndefined();
  });

  it('setIfAbsent stores once, until the entry expires', async () => {
    const key = uniqueKey('event');
    expect(await store.setIfAbsent(key, 'a', 80)).toBe(true);
    expect(await store.setIfAbsent(key, 'b', 80)).toBe(false);
    await sleep(110);
    expect(await store.setIfAbsent(key, 'c', 80)).toBe(true);
  });

  it('setIfAbsent lets exactly one of many simultaneous callers win', async () => {
    const key = uniqueKey('race');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.setIfAbsent(key, String(i), 5000)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('a lock has one owner; only the owner renews or releases it', async () => {
    const key = uniqueKey('lock');
    const token = await store.acquireLock(key, 1000);
    expect(token).toEqual(expect.any(String));
    expect(await store.acquireLock(key, 1000)).toBeNull();
    expect(await store.releaseLock(key, 'not-the-owner')).toBe(false);
    expect(await store.renewLock(key, 'not-the-owner', 1000)).toBe(false);
    expect(await store.acquireLock(key, 1000)).toBeNull();
    expect(await store.releaseLock(key, token!)).toBe(true);
    expect(await store.releaseLock(key, token!)).toBe(false);
    expect(await store.acquireLock(key, 1000)).toEqual(expect.any(String));
  });

  it('an expired lock can be taken over, and its old owner can no longer release it', async () => {
    const key = uniqueKey('lock-ttl');
    const first = await store.acquireLock(key, 60);
    await sleep(90);
    const second = await store.acquireLock(key, 1000);
    expect(second).toEqual(expect.any(String));
    expect(await store.releaseLock(key, first!)).toBe(false);
    expect(await store.acquireLock(key, 1000)).toBeNull();
  });

  it('renewing keeps a lock past its first TTL', async () => {
    const key = uniqueKey('lock-renew');
    const token = await store.acquireLock(key, 300);
    await sleep(150);
    expect(await store.renewLock(key, token!, 1000)).toBe(true);
    await sleep(250);
    expect(await store.acquireLock(key, 100)).toBeNull();
  });

  // Memory is private to one process, so only the shared backends run this.
  if (backend.openTwin) {
    it('holds a lock against another instance sharing the data', async () => {
      const other = await twin();
      const key = uniqueKey('shared-lock');
      const results = await Promise.all([store.acquireLock(key, 2000), other.acquireLock(key, 2000)]);
      expect(results.filter((t) => t !== null)).toHaveLength(1);
    });
  }

  it('takeTokens allows a burst of `capacity`, then says when the next token is back', async () => {
    const key = uniqueKey('bucket');
    const options = { capacity: 3, refillPerSecond: 10 };
    const first = await store.takeTokens(key, options);
    expect(first).toEqual({ allowed: true, remaining: expect.closeTo(2, 0), retryAfterMs: 0 });
    await store.takeTokens(key, options);
    await store.takeTokens(key, options);
    const denied = await store.takeTokens(key, options);
    expect(denied.allowed).toBe(false);
    expect(denied.retryAfterMs).toBeGreaterThan(0);
    expect(denied.retryAfterMs).toBeLessThanOrEqual(100);
    await sleep(denied.retryAfterMs + 30);
    expect((await store.takeTokens(key, options)).allowed).toBe(true);
  });

  it('takeTokens never lets simultaneous callers overdraw the bucket', async () => {
    const key = uniqueKey('bucket-race');
    const results = await Promise.all(Array.from({ length: 12 }, () => store.takeTokens(key, { capacity: 5, refillPerSecond: 0.001 })));
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
  });

  it('takeTokens with a cost takes that many and refuses a cost above capacity', async () => {
    const key = uniqueKey('bucket-cost');
    expect((await store.takeTokens(key, { capacity: 10, refillPerSecond: 1, cost: 7 })).allowed).toBe(true);
    const denied = await store.takeTokens(key, { capacity: 10, refillPerSecond: 1, cost: 7 });
    expect(denied.allowed).toBe(false);
    expect(denied.retryAfterMs).toBeGreaterThan(3000);
    await expect(store.takeTokens(key, { capacity: 10, refillPerSecond: 1, cost: 11 })).rejects.toThrow(RangeError);
  });

  it('exchangeTokens grants whole tokens up to what is there and says when the next one is back', async () => {
    const key = uniqueKey('lease');
    const bucket = { capacity: 5, refillPerSecond: 1 };
    expect(await store.exchangeTokens(key, { ...bucket, giveBack: 0, want: 3 })).toEqual({ granted: 3, retryAfterMs: 0 });
    const short = await store.exchangeTokens(key, { ...bucket, giveBack: 0, want: 3 });
    expect(short.granted).toBe(2);
    expect(short.retryAfterMs).toBeGreaterThan(900);
    expect(short.retryAfterMs).toBeLessThanOrEqual(1000);
    expect((await store.exchangeTokens(key, { ...bucket, giveBack: 0, want: 1 })).granted).toBe(0);
  });

  it('exchangeTokens takes back unused tokens, never above capacity, before granting', async () => {
    const key = uniqueKey('lease-back');
    const bucket = { capacity: 4, refillPerSecond: 0.001 };
    expect((await store.exchangeTokens(key, { ...bucket, giveBack: 0, want: 4 })).granted).toBe(4);
    expect((await store.exchangeTokens(key, { ...bucket, giveBack: 3, want: 0 })).granted).toBe(0);
    expect((await store.exchangeTokens(key, { ...bucket, giveBack: 9, want: 9 })).granted).toBe(4);
    expect((await store.exchangeTokens(key, { ...bucket, giveBack: 2, want: 2 })).granted).toBe(2);
    await expect(store.exchangeTokens(key, { ...bucket, giveBack: 0.5, want: 1 })).rejects.toThrow(RangeError);
  });

  it('exchangeTokens never lets simultaneous callers overdraw the bucket', async () => {
    const key = uniqueKey('lease-race');
    const results = await Promise.all(
      Array.from({ length: 8 }, () => store.exchangeTokens(key, { capacity: 10, refillPerSecond: 0.001, giveBack: 0, want: 3 })),
    );
    expect(results.reduce((sum, r) => sum + r.granted, 0)).toBe(10);
  });

  it('counters add up (fractions too), keep their first expiry and restart after it', async () => {
    const key = uniqueKey('counter');
    expect(await store.incrementBy(key, 2, 150)).toBe(2);
    await sleep(60);
    expect(await store.incrementBy(key, 0.5, 150)).toBe(2.5);
    await sleep(120);
    expect(await store.readCounters([key])).toEqual([0]);
    expect(await store.incrementBy(key, 4, 150)).toBe(4);
  });

  it('incrementMany applies every increment; readCounters gives 0 for unknown keys', async () => {
    const a = uniqueKey('a');
    const b = uniqueKey('b');
    await store.incrementMany([
      { key: a, n: 1 },
      { key: b, n: 10, ttlMs: 10_000 },
      { key: a, n: 2 },
    ]);
    await Promise.all(Array.from({ length: 10 }, () => store.incrementBy(b, 1)));
    expect(await store.readCounters([a, b, uniqueKey('none')])).toEqual([3, 20, 0]);
  });

  /** The next `count` messages a subscription to `channel` on `on` receives. */
  async function listen(on: Store, channel: string, count: number): Promise<{ received: Promise<string[]>; stop: () => Promise<void> }> {
    const messages: string[] = [];
    let done!: (messages: string[]) => void;
    const received = new Promise<string[]>((resolve) => (done = resolve));
    const stop = await on.subscribe(channel, (message) => {
      messages.push(message);
      if (messages.length === count) done(messages);
    });
    return { received, stop };
  }

  it('publishes to every subscriber of a channel, in order, and to nobody after they stop listening', async () => {
    const channel = uniqueKey('channel');
    const first = await listen(store, channel, 3);
    const second = await listen(store, channel, 1);
    const elsewhere = await listen(store, uniqueKey('other'), 1);
    await store.publish(channel, 'one');
    expect(await second.received).toEqual(['one']);
    await second.stop();
    await store.publish(channel, 'two');
    await store.publish(channel, '{"json":true}');
    expect(await first.received).toEqual(['one', 'two', '{"json":true}']);
    await first.stop();
    await elsewhere.stop();
  });

  if (backend.name === 'redis') {
    it('publishes to the subscribers of another instance', async () => {
      const other = await twin();
      const channel = uniqueKey('shared-channel');
      const there = await listen(other, channel, 2);
      await store.publish(channel, 'stop 1');
      await store.publish(channel, 'stop 2');
      expect(await there.received).toEqual(['stop 1', 'stop 2']);
    });
  }
});
