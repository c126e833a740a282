import { afterEach, describe, expect, it } from 'vitest';
import type { ChatInput } from '../../src/capabilities/chat.ts';
import type { Env } from '../../src/config/config.ts';
import { ConversationEngine } from '../../src/conversation/engine.ts';
import type { ScheduleActor } from '../../src/schedules/schedule.ts';
import { createMetrics, type Metrics } from '../../src/ops/metrics.ts';
import { scheduleMetricsRecorder } from '../../src/ops/schedule-metrics.ts';
import { ScheduleError } from '../../src/schedules/schedule-error.ts';
import { Scheduler } from '../../src/schedules/scheduler.ts';
import { ServerError } from '../../src/service/errors.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import { testConfig } from '../conversation/fake-adapter.ts';
import { fakeChat, type ScriptedAnswer } from '../conversation/fake-chat.ts';
import { createLogger } from '../../src/log/logger.ts';
import { silentLogger } from '../helpers/logger.ts';
import { channelMessages, MemoryHistory } from '../workspace/memory-history.ts';
import { aliceReminder } from './alice-reminder.ts';
import { FakeDelivery } from './fake-delivery.ts';

const MINUTE = 60_000;
const at = (iso: string) => Date.parse(iso);
const opened: Array<{ scheduler: Scheduler; store: MemoryStore }> = [];

afterEach(async () => {
  for (const { scheduler, store } of opened.splice(0)) {
    await scheduler.stop();
    await store.close();
  }
});

/** One instance: a scheduler on a memory store, a clock the test moves, an engine answering from a script. */
interface InstanceOptions {
  script?: ScriptedAnswer[] | ((input: ChatInput, n: number) => ScriptedAnswer);
  env?: Env;
  /** Counts the runs, as the bot's /metrics does. */
  metrics?: Metrics;
  /** Where the scheduler's log lines go (silent by default). */
  log?: Array<Record<string, unknown>>;
}

function instance(options: InstanceOptions & { start?: string } = {}) {
  const clock = { now: at(options.start ?? '2026-11-26T16:30:00Z') };
  return instanceOn(() => clock.now, clock, options);
}

function instanceOn<C>(now: () => number, clock: C, options: InstanceOptions = {}) {
  const store = new MemoryStore();
  const config = testConfig(options.env);
  const chat = fakeChat(options.script ?? [{ text: 'scripted answer' }]);
  const engine = new ConversationEngine({ config, logger: silentLogger, store, chat: chat.chat, now: () => new Date(now()) });
  const onRun = options.metrics && scheduleMetricsRecorder(options.metrics);
  const { log } = options;
  const logger = log
    ? createLogger({ level: 'info', secrets: [], destination: { write: (line: string) => void log.push(JSON.parse(line)) } })
    : silentLogger;
  const scheduler = new Scheduler({ store, engine, config, logger, now, ...(onRun && { onRun }) });
  const delivery = new FakeDelivery();
  scheduler.attach(delivery);
  opened.push({ scheduler, store });
  const create = (input: Parameters<typeof aliceReminder>[0]) => scheduler.service.create(aliceReminder(input));
  return { clock, store, engine, scheduler, delivery, create, requests: chat.requests };
}

const alice: ScheduleActor = { platform: 'test', workspaceId: 'guild-1', userId: 'U-alice', isAdmin: false };
const bob: ScheduleActor = { ...alice, userId: 'U-bob' };
const admin: ScheduleActor = { ...alice, userId: 'U-admin', isAdmin: true };

describe('Scheduler', () => {
  it('delivers a reminder once, on time, with the occurrence as its idempotency key, then forgets it', async () => {
    const { clock, scheduler, delivery, create } = instance();
    const reminder = await create({ when: 'in 20 minutes' });
    expect(reminder).toMatchObject({ kind: 'reminder', state: 'active', timezone: 'Europe/Berlin', nextRunAt: clock.now + 20 * MINUTE });

    clock.now += 19 * MINUTE;
    await scheduler.tick();
    expect(delivery.posts).toEqual([]);

    clock.now += MINUTE;
    await Promise.all([scheduler.tick(), scheduler.tick()]);
    expect(delivery.posts).toEqual([{ scheduleId: reminder.id, idempotencyKey: `${reminder.id}:${reminder.nextRunAt}`, text: 'stand-up notes' }]);
    expect(await scheduler.service.list(alice)).toEqual([]);
    clock.now += 60 * MINUTE;
    await scheduler.tick();
    expect(delivery.posts).toHaveLength(1);
    expect(delivery.notes).toEqual([]);
  });

  it('runs a recurring prompt through the engine, charged to its creator, then moves to its next occurrence', async () => {
    const { clock, engine, scheduler, delivery, create, requests } = instance({
      script: () => ({ text: 'Shipped: the login page [1].', citations: [{ index: 1, url: 'https://example.com/changelog', title: 'Changelog' }] }),
    });
    const schedule = await create({ kind: 'prompt', when: 'every weekday at 9', text: 'What shipped this week?' });
    expect(schedule).toMatchObject({ timing: { type: 'recurring', pattern: '0 9 * * 1-5' }, nextRunAt: at('2026-11-27T08:00:00Z') });

    clock.now = at('2026-11-27T08:00:00Z');
    await scheduler.tick();
    expect(delivery.posts).toHaveLength(1);
    expect(delivery.posts[0]!.reply).toMatchObject({ text: 'Shipped: the login page [1].', citations: [{ url: 'https://example.com/changelog' }] });
    expect(requests.at(-1)!.messages.at(-1)!.content).toContain('What shipped this week?');
    expect((await engine.usage({ platform: 'test', userId: 'U-alice' })).today).toMatchObject({ replies: 1, totalTokens: 15 });
    // Friday's run done, the next is Monday's.
    expect(await scheduler.service.list(alice)).toMatchObject([
      { id: schedule.id, nextRunAt: at('2026-11-30T08:00:00Z'), lastRunAt: at('2026-11-27T08:00:00Z'), failures: 0 },
    ]);
    clock.now = at('2026-11-30T08:00:30Z');
    await scheduler.tick();
    expect(delivery.posts.map((p) => p.idempotencyKey)).toEqual([
      `${schedule.id}:${at('2026-11-27T08:00:00Z')}`,
      `${schedule.id}:${at('2026-11-30T08:00:00Z')}`,
    ]);
  });

  it('summarizes a channel since the run before (the first time, since its previous time), with the messages as sources', async () => {
    const { clock, scheduler, delivery, create } = instance({ script: () => ({ text: '- We ship on Friday [1].' }) });
    const history = new MemoryHistory(channelMessages(3, (i) => `message ${i}`, at('2026-11-27T07:00:00Z')));
    delivery.access = () => ({ allowed: true, workspace: history });
    await create({
      kind: 'summary',
      when: 'every Friday at 9',
      text: '',
      source: { channelId: 'C1' },
      target: { type: 'channel', channelId: 'C-standup' },
    });
    clock.now = at('2026-11-27T08:00:00Z');
    await scheduler.tick();
    clock.now = at('2026-12-04T08:00:00Z');
    await scheduler.tick();
    expect(history.reads).toEqual([
      { channelId: 'C1', since: at('2026-11-20T08:00:00Z'), limit: expect.any(Number) },
      { channelId: 'C1', since: at('2026-11-27T08:00:00Z'), limit: expect.any(Number) },
    ]);
    expect(delivery.posts[0]!.reply).toMatchObject({
      text: '- We ship on Friday [1].',
      citations: [{ index: 1, url: 'https://chat.example/launch/m1' }],
    });
  });

  it('reports a failing run once, pauses a schedule failing three times in a row, and posts nothing of a failed run', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const { clock, scheduler, delivery, create } = instance({ metrics, script: () => ({ error: new ServerError('boom') }) });
    const schedule = await create({ kind: 'prompt', when: 'every day at 9', text: 'news?' });
    for (const day of ['27', '28', '29']) {
      clock.now = at(`2026-11-${day}T08:00:00Z`);
      await scheduler.tick();
    }
    expect(delivery.posts).toEqual([]);
    expect(delivery.notes.map((n) => [n.userId, n.text])).toEqual([
      ['U-alice', expect.stringMatching(/^Your scheduled prompt “news\?” \(\w+\) could not run on Fri 27 Nov, 09:00 CET: /)],
      ['U-alice', expect.stringMatching(/^I paused your scheduled prompt “news\?” \(\w+\) after 3 failed runs in a row/)],
    ]);
    const [paused] = await scheduler.service.list(alice);
    expect(paused).toMatchObject({ id: schedule.id, state: 'paused', failures: 3 });
    clock.now = at('2026-11-30T08:00:00Z');
    await scheduler.tick();
    expect(delivery.notes).toHaveLength(2);
    // The paused schedule's Monday is not a run.
    expect(await metrics.registry.metrics()).toMatch(/^herald_schedule_runs_total\{platform="test",kind="prompt",outcome="failed"\} 3$/m);

    // Resumed, it runs again at its next time; a run refused where it posts is a failure told to the creator.
    const resumed = await scheduler.service.resume(schedule.id, alice);
    expect(resumed).toMatchObject({ state: 'active', failures: 0, nextRunAt: at('2026-12-01T08:00:00Z') });
    delivery.access = () => ({ allowed: false, reason: 'you cannot post in #standup.' });
    clock.now = at('2026-12-01T08:00:00Z');
    await scheduler.tick();
    expect(delivery.notes.at(-1)!.text).toMatch(/could not run on Tue 1 Dec, 09:00 CET: you cannot post in #standup\.$/);
    // The same check refuses a new one at once, stored nowhere.
    await expect(create({ when: 'in 5 minutes' })).rejects.toThrow(
      new ScheduleError('I can’t set that up: you cannot post in #standup.', 'not_permitted'),
    );
    expect((await scheduler.service.list(alice)).map((s) => s.id)).toEqual([schedule.id]);
    await scheduler.service.pause(schedule.id, alice);
    await expect(scheduler.service.resume(schedule.id, alice)).rejects.toThrow('I can’t resume it: you cannot post in #standup.');
    delivery.access = () => ({ allowed: true });
    expect(await scheduler.service.resume(schedule.id, alice)).toMatchObject({ state: 'active' });
  });

  it('posts what a prompt said before it failed, and tells its creator that it failed', async () => {
    const { clock, scheduler, delivery, create } = instance({ script: [{ text: 'The first half', error: new ServerError('boom') }] });
    await create({ kind: 'prompt', when: 'tomorrow 9am', text: 'long answer please' });
    clock.now = at('2026-11-27T08:00:00Z');
    await scheduler.tick();
    expect(delivery.posts.map((p) => [p.text, p.reply?.error])).toEqual([['The first half', undefined]]);
    expect(delivery.notes.map((n) => n.text)).toEqual([
      expect.stringMatching(/^Your scheduled prompt “long answer please” \(\w+\) could not run on Fri 27 Nov, 09:00 CET/),
    ]);
    expect(await scheduler.service.list(alice)).toEqual([]);
  });

  it('puts off a run its creator’s per-minute limit refuses while the grace window lasts, then reports it', async () => {
    const { clock, scheduler, delivery, create } = instance({ env: { QUOTA_USER_PER_MINUTE: '1' }, script: () => ({ text: 'answer' }) });
    await create({ kind: 'prompt', when: 'tomorrow 9am', text: 'one' });
    await create({ kind: 'prompt', when: 'tomorrow 9am', text: 'two' });
    clock.now = at('2026-11-27T08:00:00Z');
    await scheduler.tick();
    await scheduler.tick();
    expect(delivery.posts.map((p) => p.text)).toEqual(['answer']);
    expect(delivery.notes).toEqual([]);
    const [waiting] = await scheduler.service.list(alice);
    expect(waiting).toMatchObject({ nextRunAt: at('2026-11-27T08:00:00Z'), failures: 0 });

    // Still refused when trying again would be past the grace window: a failure, told to its creator.
    clock.now = at('2026-11-27T08:09:30Z');
    await scheduler.tick();
    expect(delivery.notes).toEqual([
      {
        scheduleId: waiting!.id,
        userId: 'U-alice',
        text: expect.stringMatching(/could not run on Fri 27 Nov, 09:00 CET: You've reached your limit of 1 request per minute/),
      },
    ]);
    expect(await scheduler.service.list(alice)).toEqual([]);
  });

  it('reads only the due schedules of the platforms it delivers, however many others are due', async () => {
    const { clock, scheduler, delivery, create } = instance();
    for (let i = 0; i < 60; i++) await create({ when: 'in 20 minutes', platform: 'elsewhere', creator: { id: `U-${i}`, displayName: `user ${i}` } });
    const ours = await create({ when: 'in 21 minutes' });
    clock.now += 21 * 60_000;
    await scheduler.tick();
    expect(delivery.posts.map((p) => p.scheduleId)).toEqual([ours.id]);
  });

  it('runs what was missed while down within the grace window once, and skips older ones with a note', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const log: Array<Record<string, unknown>> = [];
    const { clock, scheduler, delivery, create } = instance({ metrics, log });
    const late = await create({ when: 'in 60 minutes', text: 'late but fine' });
    const daily = await create({ when: 'every day at 18:00', text: 'too late' });
    const lost = await create({ when: 'in 30 minutes', text: 'lost' });
    // Herald is down from 16:30 until 17:35 (18:35 in Berlin): the grace window is 10 minutes.
    clock.now = at('2026-11-26T17:35:00Z');
    await scheduler.tick();
    expect(delivery.posts.map((p) => p.text)).toEqual(['late but fine']);
    expect(delivery.notes.map((n) => n.text).sort()).toEqual([
      expect.stringMatching(/^Your reminder “lost” \(\w+\) was due on Thu 26 Nov, 18:00 CET while I was offline, so I skipped it\.$/),
      expect.stringMatching(
        /^Your reminder “too late” \(\w+\) was due on Thu 26 Nov, 18:00 CET while I was offline, so I skipped it\. It runs next on Fri 27 Nov, 18:00 CET/,
      ),
    ]);
    expect((await scheduler.service.list(alice)).map((s) => s.id)).toEqual([daily.id]);
    expect(delivery.posts[0]!.idempotencyKey).toBe(`${late.id}:${late.nextRunAt}`);
    expect(delivery.notes.map((n) => n.scheduleId).sort()).toEqual([daily.id, lost.id].sort());
    const counted = await metrics.registry.metrics();
    expect(counted).toContain('herald_schedule_runs_total{platform="test",kind="reminder",outcome="ok"} 1');
    expect(counted).toContain('herald_schedule_runs_total{platform="test",kind="reminder",outcome="skipped"} 2');
    expect(counted).not.toContain('outcome="failed"');
    // One log line per run, with how late it started.
    const runs = log.filter((line) => line.msg === 'schedule run');
    expect(runs.map((line) => [line.schedule, line.outcome]).sort()).toEqual(
      [
        [late.id, 'ok'],
        [daily.id, 'skipped'],
        [lost.id, 'skipped'],
      ].sort(),
    );
    expect(runs.find((line) => line.schedule === late.id)).toMatchObject({ platform: 'test', kind: 'reminder', result: 'ran', lateMs: 5 * MINUTE });
  });

  it('runs at the next valid minute when clocks go forward, and once when they go back (Berlin, New York)', async () => {
    const berlin = instance({ start: '2026-03-28T12:00:00Z' });
    await berlin.create({ when: 'every day at 2:30' });
    berlin.clock.now = at('2026-03-29T01:00:00Z');
    await berlin.scheduler.tick();
    expect(berlin.delivery.posts).toHaveLength(1);
    expect((await berlin.scheduler.service.list(alice))[0]!.nextRunAt).toBe(at('2026-03-30T00:30:00Z'));

    const newYork = instance({ start: '2026-10-31T12:00:00Z' });
    await newYork.create({ when: 'every day at 1:30', timezone: 'America/New_York' });
    newYork.clock.now = at('2026-11-01T05:30:00Z');
    await newYork.scheduler.tick();
    // 1:30 again, an hour later, after the clocks went back.
    newYork.clock.now = at('2026-11-01T06:30:00Z');
    await newYork.scheduler.tick();
    expect(newYork.delivery.posts).toHaveLength(1);
    expect((await newYork.scheduler.service.list(alice))[0]!.nextRunAt).toBe(at('2026-11-02T06:30:00Z'));
  });

  it('lets members manage their own schedules and admins every one of their server', async () => {
    const { clock, scheduler, delivery, create } = instance();
    const mine = await create({ when: 'every Friday at 17:00' });
    const bobs = await create({ when: 'tomorrow 9am', creator: { id: 'U-bob', displayName: 'bob' } });
    await create({ when: 'tomorrow 10am', workspaceId: 'guild-2' });

    expect((await scheduler.service.list(alice)).map((s) => s.id)).toEqual([mine.id]);
    expect((await scheduler.service.list(alice, { all: true })).map((s) => s.id)).toEqual([mine.id]);
    expect((await scheduler.service.list(admin, { all: true })).map((s) => s.id)).toEqual([bobs.id, mine.id]);
    await expect(scheduler.service.pause(mine.id, bob)).rejects.toMatchObject({ code: 'not_permitted' });
    await expect(scheduler.service.delete(mine.id, { ...alice, workspaceId: 'guild-2' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(scheduler.service.delete('nope', alice)).rejects.toThrow(ScheduleError);

    expect(await scheduler.service.pause(mine.id.toUpperCase(), admin)).toMatchObject({ state: 'paused' });
    clock.now = at('2026-11-27T08:00:00Z');
    await scheduler.tick();
    clock.now = at('2026-11-27T16:00:00Z');
    await scheduler.tick();
    expect(delivery.posts.map((p) => p.scheduleId)).toEqual([bobs.id]);
    expect(await scheduler.service.resume(mine.id, alice)).toMatchObject({ state: 'active', nextRunAt: at('2026-12-04T16:00:00Z') });
    expect(await scheduler.service.delete(mine.id, alice)).toMatchObject({ id: mine.id });
    expect(await scheduler.service.list(admin, { all: true })).toEqual([]);

    const now = await create({ when: 'every day at 8:00', text: 'now please' });
    const release = delivery.holdNextPost();
    const started = delivery.postStarted();
    const running = scheduler.service.run(now.id, alice);
    await started;
    await expect(scheduler.service.run(now.id, alice)).rejects.toMatchObject({ message: 'It is running already.' });
    release();
    await running;
    expect(delivery.posts.slice(1)).toEqual([{ scheduleId: now.id, text: 'now please', idempotencyKey: `${now.id}:now:${clock.now}` }]);
    expect((await scheduler.service.list(alice))[0]!.nextRunAt).toBe(now.nextRunAt);
    await expect(create({ when: 'yesterday 9am' })).rejects.toMatchObject({ code: 'past', message: 'That time has passed.' });
    await expect(create({ when: 'tomorrow', timezone: 'Mars/Olympus' })).rejects.toMatchObject({ code: 'bad_zone' });
  });

  it('started, sleeps until the next occurrence, and on stop lets a run in progress finish within the bound', async () => {
    // Real time, shifted so that a reminder set for 20 minutes from now is due in a moment.
    const shift = { ms: 0 };
    const { scheduler, delivery, create } = instanceOn(() => Date.now() + shift.ms, shift);
    const first = await create({ when: 'in 20 minutes', text: 'first' });
    await create({ when: 'in 21 minutes', text: 'second' });
    shift.ms = first.nextRunAt! - 30 - Date.now();
    await scheduler.start();
    await delivery.posted(1);
    expect(delivery.posts.map((p) => p.text)).toEqual(['first']);

    const release = delivery.holdNextPost();
    const started = delivery.postStarted();
    shift.ms += MINUTE;
    scheduler.wake();
    await started;
    const stopped = scheduler.stop({ signal: new AbortController().signal });
    release();
    await stopped;
    expect(delivery.posts.map((p) => p.text)).toEqual(['first', 'second']);
    expect(await scheduler.service.list(alice)).toEqual([]);
  });
});
