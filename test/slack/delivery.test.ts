import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis-store.ts';
import type { FakeSlack } from '../fakes/slack/index.ts';
import { startHerald, startSlackWorld, stopSlackWorld, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';
import { reachable, redisUrl } from '../store/backends.ts';

const redisUp = await reachable(redisUrl);

describe.each(['http', 'mounted'] as const)('Slack delivery over HTTP (%s)', (mode) => {
  let fake: FakeSlack;
  let emu: Emulator;
  let herald: HeraldOnSlack;

  beforeEach(async () => {
    ({ fake, emu, herald } = await startSlackWorld({ mode }));
  });

  afterEach(() => stopSlackWorld({ fake, emu, herald }));

  const answers = () => fake.botMessages().filter((m) => m.stream !== undefined || m.thread_ts !== undefined);

  it("acknowledges at once, and Slack's retry of the same event gets no second reply", async () => {
    const first = await fake.deliverEvent(fake.events.appMention({ text: 'only once please' }));
    expect(first.status).toBe(200);
    expect(first.ackMs).toBeLessThan(3000);
    const retry = await fake.redeliver(first, { retryNum: 1, retryReason: 'http_timeout' });
    const secondRetry = await fake.redeliver(first, { retryNum: 2, retryReason: 'http_error' });
    expect([retry.status, secondRetry.status]).toEqual([200, 200]);
    await fake.waitFor(() => answers().find((m) => m.stream?.state === 'stopped'));
    await herald.settled();
    expect(answers()).toHaveLength(1);
    expect(emu.requests).toHaveLength(1);
  });

  it('a duplicate delivery of an event id gets no second reply', async () => {
    const first = await fake.deliverEvent(fake.events.appMention({ text: 'dup' }));
    await fake.deliverEvent(fake.events.appMention({ text: 'dup' }), { sameEventIdAs: first });
    await fake.waitFor(() => answers()[0]);
    await herald.settled();
    expect(answers()).toHaveLength(1);
  });

  it('a mention Slack sends both as app_mention and as message is answered once, whichever comes first', async () => {
    const mention = fake.events.appMention({ text: 'one answer for two events' });
    await fake.deliverEvent(fake.events.messageOf(mention));
    await fake.deliverEvent(mention);
    const other = fake.events.appMention({ text: 'and again the other way round' });
    await fake.deliverEvent(other);
    await fake.deliverEvent(fake.events.messageOf(other));
    await fake.waitFor(() => answers().filter((m) => m.stream?.state === 'stopped').length >= 2 || undefined);
    await herald.settled();
    expect(
      answers()
        .map((m) => m.thread_ts)
        .sort(),
    ).toEqual([String(mention.ts), String(other.ts)].sort());
    expect(emu.requests).toHaveLength(2);
  });

  it('answers a mention that comes only as a message event (Slack sometimes sends no app_mention for a file share)', async () => {
    const mention = fake.events.appMention({ text: 'only the message event' });
    await fake.deliverEvent(fake.events.messageOf(mention));
    const answer = await fake.waitFor(() => answers().find((m) => m.stream?.state === 'stopped'));
    expect(answer.thread_ts).toBe(String(mention.ts));
    expect(answer.channel).toBe(mention.channel);
  });

  it('refuses a forged signature and a stale timestamp with 401 and does nothing', async () => {
    const forged = await fake.deliverEvent(fake.events.appMention({ text: 'forged' }), { forge: true });
    const stale = await fake.deliverEvent(fake.events.appMention({ text: 'replayed' }), { stale: true });
    const forgedCommand = await fake.sendSlashCommand({ command: '/usage', forge: true });
    expect([forged.status, stale.status, forgedCommand.status]).toEqual([401, 401, 401]);
    await herald.settled();
    expect(fake.calls().filter((c) => c.method !== 'auth.test')).toEqual([]);
    expect(emu.requests).toHaveLength(0);
  });

  it("echoes Slack's url_verification challenge", async () => {
    const delivery = await fake.urlVerification();
    expect(delivery.status).toBe(200);
    expect(JSON.parse(delivery.responseBody)).toEqual({ challenge: delivery.payload.challenge });
  });

  if (mode === 'mounted') {
    it('shares the port with /healthz', async () => {
      const base = herald.eventsUrl!.replace('/slack/events', '');
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      expect((await fetch(`${base}/slack/nothing-here`)).status).toBe(404);
    });
  }
});

describe('Slack delivery to two instances sharing Redis', () => {
  const title = 'answers an event once even when the retry reaches the other instance';
  it.skipIf(!redisUp)(redisUp ? `${title} (${redisUrl})` : `${title} — skipped: no redis-server at ${redisUrl} (set REDIS_URL)`, async () => {
    const storeA = await RedisStore.connect(redisUrl);
    const storeB = await RedisStore.connect(redisUrl);
    const world = await startSlackWorld({ store: storeA, env: { STORE_URL: redisUrl } });
    const { fake, emu, herald: a } = world;
    const b = await startHerald(fake, emu, { mode: 'http', store: storeB, env: { STORE_URL: redisUrl }, keepRequestUrl: true });
    try {
      const first = await fake.deliverEvent(fake.events.appMention({ text: 'two instances' }));
      fake.setRequestUrl(b.eventsUrl!);
      const retry = await fake.redeliver(first);
      const duplicate = await fake.deliverEvent(fake.events.appMention({ text: 'two instances' }), { sameEventIdAs: first });
      expect([first.status, retry.status, duplicate.status]).toEqual([200, 200, 200]);
      await fake.waitFor(() => fake.botMessages().find((m) => m.stream?.state === 'stopped'));
      await a.settled();
      await b.settled();
      expect(fake.botMessages()).toHaveLength(1);
      expect(emu.requests).toHaveLength(1);
      // A new event on the second instance is answered there.
      await fake.deliverEvent(fake.events.appMention({ text: 'second question' }));
      await fake.waitFor(() => fake.botMessages().filter((m) => m.stream?.state === 'stopped').length === 2);
    } finally {
      await b.stop();
      await stopSlackWorld(world);
      await storeA.close();
      await storeB.close();
    }
  });
});
