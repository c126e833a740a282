import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RedisStore } from '../../src/store/redis-store.ts';
import type { HeraldProcess } from '../../bench/load/herald-process.ts';
import { startHeraldChild } from '../helpers/herald-child.ts';
import { markdownOf, startFakeSlack, type FakeSlack, type Json } from '../fakes/slack/index.ts';
import { startEmulator } from '../fakes/service/emulator.ts';
import { emptyRedisDatabase, reachable, redisUrl } from '../store/backends.ts';
import { startHerald, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

const redisUp = await reachable(redisUrl);

describe.skipIf(!redisUp)(`Slack: a reply whose instance died is finished by another (Redis at ${redisUrl})`, () => {
  let fake: FakeSlack;
  let emu: Emulator;
  let storeUrl: string;
  let stores: RedisStore[];
  let instances: HeraldOnSlack[];
  let child: HeraldProcess | undefined;

  beforeEach(async () => {
    fake = await startFakeSlack();
    emu = await startEmulator({ pace: { tokensPerSecond: 40, ttsChunkIntervalMs: 0 } });
    storeUrl = await emptyRedisDatabase(7);
    stores = [];
    instances = [];
  });

  afterEach(async () => {
    vi.useRealTimers();
    await child?.stop();
    child = undefined;
    for (const herald of instances) await herald.stop();
    for (const store of stores) await store.close();
    await fake.close();
    await emu.close();
  });

  async function instance(receiving: boolean): Promise<HeraldOnSlack> {
    const store = await RedisStore.connect(storeUrl);
    stores.push(store);
    const herald = await startHerald(fake, emu, { mode: 'http', store, env: { STORE_URL: storeUrl }, keepRequestUrl: !receiving });
    instances.push(herald);
    return herald;
  }

  const answersTo = (question: Json) => fake.botMessages().filter((m) => m.thread_ts === question.ts);
  const asked = (text: string) => emu.requests.filter((r) => JSON.stringify(r.body).includes(text)).length;
  /** Replies some instance is to finish, as the store has them. */
  const unfinished = () => stores[0]!.sortedUpTo('replies:slack', Infinity, 10);
  const takenOver = async (herald: HeraldOnSlack) =>
    (await herald.metrics.registry.getSingleMetric('herald_replies_taken_over_total')?.get())?.values[0]?.value ?? 0;

  it('an instance killed mid-answer: one of the others deletes the partial answer and writes the whole one; the retried event adds nothing', {
    timeout: 90_000,
  }, async () => {
    const other = await instance(false);
    const third = await instance(false);
    child = await startHeraldChild({
      PATH: process.env.PATH ?? '',
      API_BASE_URL: emu.url,
      API_KEY: emu.apiKey,
      SLACK_BOT_TOKEN: fake.botToken,
      SLACK_SIGNING_SECRET: fake.signingSecret,
      SLACK_API_URL: fake.apiUrl,
      STORE_URL: storeUrl,
      PORT: '0',
      LOG_LEVEL: 'info',
    });
    fake.setRequestUrl(`${child.opsUrl}/slack/events`);
    const question = fake.events.appMention({ text: 'long 400' });
    const delivery = await fake.deliverEvent(question);
    const partial = await fake.waitFor(() => answersTo(question).find((m) => m.stream?.state === 'streaming' && m.text.length > 40), 20_000);

    process.kill(child.pid, 'SIGKILL');
    emu.pace.tokensPerSecond = 0;
    // Slack retries a delivery that failed; behind one URL it reaches the instance still running.
    fake.setRequestUrl(other.eventsUrl!);
    expect((await fake.redeliver(delivery)).status).toBe(200);

    const answer = await fake.waitFor(() => {
      const [only] = answersTo(question);
      return only && only.ts !== partial.ts && only.stream?.state === 'stopped' && only;
    }, 60_000);
    await other.settled();
    await third.settled();
    expect(markdownOf(answer).split(/\s+/)).toHaveLength(400);
    expect(answersTo(question)).toEqual([answer]);
    expect(fake.message(partial.channel, partial.ts)).toBeUndefined();
    expect(asked('long 400')).toBe(2);
    expect((await takenOver(other)) + (await takenOver(third))).toBe(1);

    expect((await fake.redeliver(delivery)).status).toBe(200);
    await other.settled();
    expect(answersTo(question)).toEqual([answer]);
    expect(asked('long 400')).toBe(2);
  });

  it('a retry of a question whose claimant died before it began answering is answered, once', { timeout: 30_000 }, async () => {
    const herald = await instance(true);
    const question = fake.events.appMention({ text: 'are you there?' });
    // The claimant took the question and died at once: nothing of it is in the store but its claim.
    await stores[0]!.setIfAbsent(`claim:slack:question:${String(question.channel)}:${String(question.ts)}`, 'dead', 60_000);
    const delivery = await fake.deliverEvent(question);
    await herald.settled();
    // So soon after it was asked, the claimant may still be about to begin: the delivery leaves it to the claimant.
    expect(answersTo(question)).toEqual([]);

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 20_000 });
    expect((await fake.redeliver(delivery)).status).toBe(200);
    const answer = await fake.waitFor(() => answersTo(question).find((m) => m.stream?.state === 'stopped'), 10_000);
    expect(answer.text).toBe('Echo: [alice]: are you there?');
    expect((await fake.redeliver(delivery)).status).toBe(200);
    await herald.settled();
    expect(answersTo(question)).toEqual([answer]);
    expect(asked('are you there?')).toBe(1);
  });

  it('a healthy reply longer than a heartbeat’s expiry is never taken over', { timeout: 40_000 }, async () => {
    emu.pace.tokensPerSecond = 50;
    const writer = await instance(true);
    const other = await instance(false);
    const question = fake.events.appMention({ text: 'long 300' });
    await fake.deliverEvent(question);
    const answer = await fake.waitFor(() => answersTo(question).find((m) => m.stream?.state === 'stopped'), 30_000);
    await writer.settled();
    await other.settled();
    expect(markdownOf(answer).split(/\s+/)).toHaveLength(300);
    expect(answersTo(question)).toEqual([answer]);
    expect(asked('long 300')).toBe(1);
    expect(await takenOver(other)).toBe(0);
    expect(await unfinished()).toEqual([]);
  });

  it('a reply a graceful stop ends with its note is left for nobody to finish', { timeout: 30_000 }, async () => {
    const writer = await instance(true);
    const question = fake.events.appMention({ text: 'long 400' });
    await fake.deliverEvent(question);
    const partial = await fake.waitFor(() => answersTo(question).find((m) => m.stream?.state === 'streaming' && m.text.length > 40), 10_000);
    instances.splice(instances.indexOf(writer), 1);
    await writer.stop();
    expect(fake.message(partial.channel, partial.ts)?.text).toMatch(/⚠️ The reply was cancelled\.$/);
    expect(await unfinished()).toEqual([]);
  });
});
