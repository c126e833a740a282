import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/index.ts';
import { startEmulator } from '../fakes/service/emulator.ts';
import { startHarness, type Harness } from '../discord/harness.ts';
import { startHerald, type Emulator, type HeraldOnSlack } from '../slack/herald-on-fake-slack.ts';
import { freePort, redisServerInstalled, startRedisServer, stopRedisServer } from '../store/redis-server.ts';

// Two Herald instances, one on Discord and one on Slack, share one Redis; then Redis stops. Whoever asks hears
// within 5 s that Herald's memory is unreachable, instead of an answer that comes whenever Redis returns.

const UNREACHABLE = /memory is unreachable/;

describe.skipIf(!redisServerInstalled)('a store outage under two instances', () => {
  let redis: ChildProcess;
  let discord: Harness;
  let slackFake: FakeSlack;
  let slackEmu: Emulator;
  let slack: HeraldOnSlack;
  let discordChannel: string;

  beforeAll(async () => {
    const port = await freePort();
    redis = await startRedisServer(port);
    const env = { STORE_URL: `redis://127.0.0.1:${port}`, STORE_TIMEOUT_MS: '1500' };
    discord = await startHarness({ env });
    slackFake = await startFakeSlack();
    slackEmu = await startEmulator();
    slack = await startHerald(slackFake, slackEmu, { mode: 'http', env });

    // Both answer while Redis is up.
    discordChannel = discord.fake.addChannel({ name: 'outage' }).id;
    discord.fake.sendMessage({ channelId: discordChannel, content: `${discord.mention} hello` });
    await discord.repliesFinished(1);
    await slackFake.deliverEvent(slackFake.events.appMention({ text: 'hello' }));
    await slackFake.waitFor(() => slackFake.botMessages().find((m) => m.stream?.state === 'stopped'));

    await stopRedisServer(redis);
  });

  afterAll(async () => {
    await slack?.stop().catch(() => {});
    await slackFake?.close();
    await slackEmu?.close();
    await discord?.close().catch(() => {});
    if (redis) await stopRedisServer(redis);
  });

  it('Discord: the asker is told within 5 s and the reply ends', async () => {
    const asked = performance.now();
    discord.fake.sendMessage({ channelId: discordChannel, content: `${discord.mention} are you there?` });
    await discord.repliesFinished(2, 5000);
    expect(
      discord
        .botMessages(discordChannel)
        .slice(1)
        .map((m) => m.content)
        .join('\n'),
    ).toMatch(UNREACHABLE);
    expect(performance.now() - asked).toBeLessThan(5000);
  });

  it('Slack: the asker is told within 5 s in the thread, and no stream is left open', async () => {
    const asked = performance.now();
    const mention = slackFake.events.appMention({ text: 'are you there?' });
    await slackFake.deliverEvent(mention);
    const told = await slackFake.waitFor(() => slackFake.botMessages().find((m) => m.thread_ts === mention.ts && UNREACHABLE.test(m.text)), 5000);
    expect(told.stream?.state ?? 'stopped').toBe('stopped');
    expect(performance.now() - asked).toBeLessThan(5000);
  });

  it('Slack assistant thread: the asker is told within 5 s and "is thinking…" is cleared', async () => {
    const started = slackFake.events.assistantThreadStarted();
    const thread = started.assistant_thread as { channel_id: string; thread_ts: string };
    await slackFake.deliverEvent(started);
    const asked = performance.now();
    const question = slackFake.events.threadReply({ text: 'still there?', channel: thread.channel_id, thread_ts: thread.thread_ts });
    await slackFake.deliverEvent(question);
    const told = await slackFake.waitFor(
      () => slackFake.botMessages(thread.channel_id).find((m) => m.thread_ts === thread.thread_ts && UNREACHABLE.test(m.text)),
      5000,
    );
    expect(told.stream?.state ?? 'stopped').toBe('stopped');
    const cleared = await slackFake.waitFor(() => {
      const state = slackFake.assistantThread(thread.channel_id, thread.thread_ts);
      return state.status === '' && state;
    }, 5000);
    expect(cleared.statusHistory.map((s) => s.status)).toEqual(['is thinking…', '']);
    expect(performance.now() - asked).toBeLessThan(5000);
  });
});
