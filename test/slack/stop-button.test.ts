import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis-store.ts';
import { markdownOf, startFakeSlack, type FakeSlack, type Json, type StoredMessage } from '../fakes/slack/index.ts';
import { startEmulator } from '../fakes/service/emulator.ts';
import { reachable, redisUrl } from '../store/backends.ts';
import { startHerald, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

const redisUp = await reachable(redisUrl);

function hasStop(message: StoredMessage): boolean {
  return ((message.blocks ?? []) as Json[]).some((b) => b.type === 'actions' && (b.elements as Json[]).some((e) => e.action_id === 'herald_stop'));
}

function hasFeedback(message: StoredMessage): boolean {
  return ((message.blocks ?? []) as Json[]).some((b) => b.type === 'context_actions');
}

describe("Herald's Stop button on Slack replies that are posted and edited", () => {
  let fake: FakeSlack;
  let emu: Emulator;
  const instances: HeraldOnSlack[] = [];
  let stores: RedisStore[] = [];
  let bob: string;
  let carol: string;

  beforeAll(async () => {
    fake = await startFakeSlack();
    emu = await startEmulator({ pace: { tokensPerSecond: 60, ttsChunkIntervalMs: 0 } });
    bob = fake.addUser({ name: 'bob' }).id;
    carol = fake.addUser({ name: 'carol' }).id;
    Object.assign(fake.workspace.users.get(carol)!, { is_admin: true });
  });

  afterEach(async () => {
    for (const herald of instances.splice(0)) await herald.stop();
    for (const store of stores.splice(0)) await store.close();
  });

  afterAll(async () => {
    await fake.close();
    await emu.close();
  });

  /** A long answer in a channel thread, posted and edited (this workspace has no native streaming). */
  async function longAnswer(herald: HeraldOnSlack) {
    fake.injectError('chat.startStream', 'feature_not_enabled');
    const requestsBefore = emu.requests.length;
    const mention = fake.events.appMention({ text: 'long 600' });
    await fake.deliverEvent(mention);
    const reply = await fake.waitFor(() => fake.thread(fake.channelId, String(mention.ts)).find((m) => m.user === fake.botUserId && hasStop(m)));
    expect(reply.stream).toBeUndefined();
    return { reply, request: () => emu.requests[requestsBefore], herald };
  }

  const pressStop = async (reply: StoredMessage, user: string) => {
    const delivery = await fake.sendInteractive(fake.interactions.press({ channel: reply.channel, ts: reply.ts, actionId: 'herald_stop', user }));
    expect(delivery.status).toBe(200);
    expect(delivery.ackMs).toBeLessThan(3000);
  };

  it('only the asker or a workspace admin may stop it; a press stops the service request and the message ends cleanly', async () => {
    const herald = await startHerald(fake, emu, { mode: 'http' });
    instances.push(herald);
    const { reply, request } = await longAnswer(herald);

    await pressStop(reply, bob);
    await fake.waitFor(() => fake.workspace.ephemeral.find((e) => e.user === bob));
    expect(fake.workspace.ephemeral.filter((e) => e.user === bob)).toEqual([
      expect.objectContaining({ channel: fake.channelId, thread_ts: reply.thread_ts, text: 'Only the asker can do that.' }),
    ]);
    expect(request()?.closed).toBeUndefined();
    expect(hasStop(reply)).toBe(true);

    await pressStop(reply, fake.userId);
    await fake.waitFor(() => !hasStop(reply) && request()?.closed);
    await herald.settled();
    expect(request()?.closed).toMatchObject({ byClient: true });
    const { sent, total } = request()!.streamed!;
    expect(sent).toBeLessThan(total);
    expect(markdownOf(reply)).not.toMatch(/⚠️|…$/);
    expect(markdownOf(reply).length).toBeGreaterThan(0);
    expect(hasFeedback(reply)).toBe(true);

    // A workspace admin may stop someone else's answer.
    const second = await longAnswer(herald);
    await pressStop(second.reply, carol);
    await fake.waitFor(() => !hasStop(second.reply) && second.request()?.closed);
    expect(second.request()?.closed).toMatchObject({ byClient: true });
    expect(fake.workspace.ephemeral.filter((e) => e.user === carol)).toEqual([]);
  });

  it.skipIf(!redisUp)(
    redisUp
      ? `a press landing on the other instance stops the answer there (${redisUrl})`
      : `a press landing on the other instance stops the answer there — skipped: no redis-server at ${redisUrl} (set REDIS_URL)`,
    async () => {
      stores = [await RedisStore.connect(redisUrl), await RedisStore.connect(redisUrl)];
      const writer = await startHerald(fake, emu, { mode: 'http', store: stores[0], env: { STORE_URL: redisUrl } });
      const other = await startHerald(fake, emu, { mode: 'http', store: stores[1], env: { STORE_URL: redisUrl }, keepRequestUrl: true });
      instances.push(writer, other);
      const { reply, request } = await longAnswer(writer);

      fake.setRequestUrl(other.eventsUrl!);
      await pressStop(reply, fake.userId);
      await fake.waitFor(() => !hasStop(reply) && request()?.closed);
      expect(request()?.closed).toMatchObject({ byClient: true });
      expect(markdownOf(reply)).not.toMatch(/⚠️/);
    },
  );
});
