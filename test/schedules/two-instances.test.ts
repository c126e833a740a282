import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConversationEngine } from '../../src/conversation/engine.ts';
import type { RunResult } from '../../src/schedules/schedule-runner.ts';
import { Scheduler } from '../../src/schedules/scheduler.ts';
import { RedisStore } from '../../src/store/redis-store.ts';
import type { Store } from '../../src/store/store.ts';
import { testConfig } from '../conversation/fake-adapter.ts';
import { fakeChat } from '../conversation/fake-chat.ts';
import { silentLogger } from '../helpers/logger.ts';
import { freePort, redisServerInstalled, startRedisServer, stopRedisServer } from '../store/redis-server.ts';
import { aliceReminder } from './alice-reminder.ts';
import { FakeDelivery } from './fake-delivery.ts';

// Two Herald instances share one Redis and one platform: every occurrence is delivered once, even when one of them
// dies in the middle of a run.

const LEASE_MS = 300;
const at = (iso: string) => Date.parse(iso);

describe.skipIf(!redisServerInstalled)('two schedulers on one Redis', () => {
  let redis: ChildProcess;
  let port: number;
  let database = 0;
  const opened: Array<{ scheduler: Scheduler; store: RedisStore }> = [];

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedisServer(port);
  });

  afterAll(async () => {
    if (redis) await stopRedisServer(redis);
  });

  afterEach(async () => {
    for (const { scheduler, store } of opened.splice(0)) {
      await scheduler.stop();
      await store.close().catch(() => {});
    }
  });

  /** The store as one instance sees it, until `crash()`: from then on every call fails, as for a process that died. */
  function crashable(store: Store): { store: Store; crash: () => void } {
    let crashed = false;
    const view = new Proxy(store, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => (crashed ? Promise.reject(new Error('this instance died')) : value.apply(target, args));
      },
    });
    return { store: view, crash: () => (crashed = true) };
  }

  /** Two instances on a database of their own, sharing a clock and the platform (one delivery, which dedupes keys as Discord's nonce does). */
  async function pair(platform: FakeDelivery) {
    database += 1;
    const clock = { now: at('2026-11-26T16:30:00Z') };
    const config = testConfig();
    const make = async () => {
      const real = await RedisStore.connect(`redis://127.0.0.1:${port}/${database}`);
      const { store, crash } = crashable(real);
      const runs: Array<{ scheduleId: string; result: RunResult }> = [];
      const waiting: Array<{ result: RunResult; count: number; resolve: () => void }> = [];
      const settle = () => {
        for (const w of waiting.splice(0)) {
          if (runs.filter((r) => r.result === w.result).length >= w.count) w.resolve();
          else waiting.push(w);
        }
      };
      const engine = new ConversationEngine({ config, logger: silentLogger, store, chat: fakeChat([]).chat });
      const scheduler = new Scheduler({
        store,
        engine,
        config,
        logger: silentLogger,
        now: () => clock.now,
        leaseMs: LEASE_MS,
        onRun: (run) => {
          runs.push(run);
          settle();
        },
      });
      scheduler.attach(platform);
      opened.push({ scheduler, store: real });
      /** Resolves once this instance has had `count` occurrences with that result. */
      const until = (result: RunResult, count = 1) =>
        new Promise<void>((resolve) => {
          waiting.push({ result, count, resolve });
          settle();
        });
      return { crash, scheduler, runs, until };
    };
    return { clock, a: await make(), b: await make() };
  }

  const reminder = (scheduler: Scheduler, when: string, text: string) => scheduler.service.create(aliceReminder({ when, text }));

  it('racing for the same occurrences, they deliver each once', async () => {
    const platform = new FakeDelivery();
    const { clock, a, b } = await pair(platform);
    for (let i = 1; i <= 4; i++) await reminder(i % 2 ? a.scheduler : b.scheduler, 'in 20 minutes', `reminder ${i}`);
    const daily = await reminder(a.scheduler, 'every day at 18:00', 'daily');
    clock.now = at('2026-11-26T17:00:00Z');
    await Promise.all([a.scheduler.tick(), b.scheduler.tick(), a.scheduler.tick(), b.scheduler.tick()]);
    clock.now = at('2026-11-27T17:00:00Z');
    await Promise.all([a.scheduler.tick(), b.scheduler.tick()]);

    expect(platform.attempts).toHaveLength(6);
    expect(new Set(platform.attempts).size).toBe(6);
    expect(platform.posts.map((p) => p.text).sort()).toEqual(['daily', 'daily', 'reminder 1', 'reminder 2', 'reminder 3', 'reminder 4']);
    expect([...a.runs, ...b.runs].filter((r) => r.result === 'ran')).toHaveLength(6);
    expect(await b.scheduler.service.list({ platform: 'test', workspaceId: 'guild-1', userId: 'U-alice', isAdmin: false })).toMatchObject([
      { id: daily.id, nextRunAt: at('2026-11-28T17:00:00Z') },
    ]);
  });

  it('a run longer than its lease keeps its claim: the other instance waits', async () => {
    const platform = new FakeDelivery();
    const { clock, a, b } = await pair(platform);
    const made = await reminder(a.scheduler, 'in 20 minutes', 'slow');
    const release = platform.holdNextPost();
    clock.now = made.nextRunAt!;
    const started = platform.postStarted();
    const running = a.scheduler.tick();
    await started;
    const asking = performance.now();
    await b.scheduler.start();
    // B looks again every half lease (not at once: it would spin), so four refusals span more than a whole lease.
    await b.until('held', 4);
    expect(performance.now() - asking).toBeGreaterThanOrEqual(LEASE_MS);
    release();
    await running;
    expect(a.runs.map((r) => r.result)).toEqual(['ran']);
    expect(b.runs.every((r) => r.result === 'held')).toBe(true);
    expect(platform.attempts).toEqual([`${made.id}:${made.nextRunAt}`]);
    expect(platform.posts.map((p) => p.text)).toEqual(['slow']);
  });

  it('an instance that dies after posting leaves the run to the other, which posts with the same key: shown once', async () => {
    const platform = new FakeDelivery();
    const { clock, a, b } = await pair(platform);
    const made = await reminder(a.scheduler, 'in 20 minutes', 'post me once');
    platform.afterNextPost = async () => a.crash();
    clock.now = made.nextRunAt!;
    await a.scheduler.tick();
    expect(a.runs).toEqual([]);

    await b.scheduler.start();
    await b.until('ran');
    const key = `${made.id}:${made.nextRunAt}`;
    expect(platform.attempts).toEqual([key, key]);
    expect(platform.posts.map((p) => p.text)).toEqual(['post me once']);
    expect(platform.notes).toEqual([]);
    expect(await b.scheduler.service.list({ platform: 'test', workspaceId: 'guild-1', userId: 'U-alice', isAdmin: false })).toEqual([]);
  });

  it('where posts cannot be deduped, a run cut off mid-post is reported to its creator, not repeated', async () => {
    const platform = new FakeDelivery('test', { idempotentPosts: false });
    const { clock, a, b } = await pair(platform);
    const made = await reminder(a.scheduler, 'in 20 minutes', 'half posted');
    platform.holdNextPost();
    clock.now = made.nextRunAt!;
    const started = platform.postStarted();
    void a.scheduler.tick();
    await started;
    a.crash();

    await b.scheduler.start();
    await Promise.all([b.until('ran'), a.until('lost')]);
    expect(platform.attempts).toEqual([`${made.id}:${made.nextRunAt}`]);
    expect(platform.posts).toEqual([]);
    expect(platform.notes).toEqual([
      {
        scheduleId: made.id,
        userId: 'U-alice',
        text: expect.stringMatching(/^Your reminder “half posted” \(\w+\) of Thu 26 Nov, 17:50 CET was interrupted while it was being posted\./),
      },
    ]);
  });

  it('where posts cannot be deduped, a run cut off before it posted anything is run by the other instance', async () => {
    const platform = new FakeDelivery('test', { idempotentPosts: false });
    const { clock, a, b } = await pair(platform);
    const made = await reminder(a.scheduler, 'in 20 minutes', 'not yet posted');
    let checking!: () => void;
    const checked = new Promise<void>((resolve) => (checking = resolve));
    platform.access = () => {
      platform.access = () => ({ allowed: true });
      checking();
      return new Promise(() => {});
    };
    clock.now = made.nextRunAt!;
    void a.scheduler.tick();
    await checked;
    a.crash();

    await b.scheduler.start();
    await Promise.all([b.until('ran'), a.until('lost')]);
    expect(platform.posts.map((p) => [p.text, p.idempotencyKey])).toEqual([['not yet posted', `${made.id}:${made.nextRunAt}`]]);
    expect(platform.notes).toEqual([]);
  });
});
