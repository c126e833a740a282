import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordClient } from '../../adapters/discord/client.ts';
import { loadConfig, type Env } from '../../src/config/config.ts';
import { ConfigError } from '../../src/config/config-error.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import { shardOf, startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';
import { startHarness, startInstance, type Harness, type Instance } from './harness.ts';
import { reachable, redisUrl } from '../store/backends.ts';

/** Two guilds, one on each of two shards, with a text channel each that alice writes in. */
function guildsOnTwoShards(fake: FakeDiscord): string[] {
  return [0, 1].map((shard) => {
    const guild = fake.addGuild({ name: `guild on shard ${shard}`, memberIds: [fake.users.alice.id], shard: [shard, 2] });
    return fake.addChannel({ guildId: guild.id, name: 'general' }).id;
  });
}

function botContents(fake: FakeDiscord, channelId: string): string[] {
  return fake
    .messages(channelId)
    .filter((m) => m.authorId === fake.botUser.id)
    .map((m) => m.content);
}

function identifiedShards(fake: FakeDiscord): number[][] {
  return fake.gatewayReceived
    .filter((p) => p.op === 2)
    .map((p) => (p.d as { shard: number[] }).shard)
    .sort();
}

describe('SHARD_COUNT and SHARD_IDS', () => {
  const base = { API_BASE_URL: 'http://127.0.0.1:1', API_KEY: 'k', DISCORD_TOKEN: 't' };
  const load = (env: Env) => loadConfig({ ...base, ...env }, { envFile: '/nonexistent/.env' });
  const failure = (env: Env) => {
    try {
      load(env);
    } catch (error) {
      return error instanceof ConfigError ? error.message : String(error);
    }
    return 'no error';
  };

  it('default to one shard run here; take a count or auto, and the ids this process runs', () => {
    expect(load({}).discord?.shards).toEqual({ count: 1 });
    expect(load({ SHARD_COUNT: 'auto' }).discord?.shards).toEqual({ count: 'auto' });
    expect(load({ SHARD_COUNT: '4', SHARD_IDS: ' 3, 1,1 ' }).discord?.shards).toEqual({ count: 4, ids: [1, 3] });
  });

  it('refuse ids without a numeric count, ids past the count, and counts that are not positive numbers', () => {
    expect(failure({ SHARD_IDS: '0' })).toMatch(/SHARD_IDS.*needs SHARD_COUNT/);
    expect(failure({ SHARD_COUNT: 'auto', SHARD_IDS: '0' })).toMatch(/SHARD_IDS.*needs SHARD_COUNT/);
    expect(failure({ SHARD_COUNT: '2', SHARD_IDS: '0,2' })).toMatch(/SHARD_IDS.*shard 2 does not exist.*0 to 1/);
    expect(failure({ SHARD_COUNT: '0' })).toMatch(/SHARD_COUNT.*"auto" or a positive whole number/);
    expect(failure({ SHARD_COUNT: 'two' })).toMatch(/SHARD_COUNT/);
    expect(failure({ SHARD_COUNT: '2', SHARD_IDS: '0;1' })).toMatch(/SHARD_IDS.*comma-separated/);
  });

  it("are what discord.js runs, whatever SHARD_COUNT holds in the process's environment", () => {
    const saved = process.env.SHARD_COUNT;
    try {
      for (const [inEnvironment, env, shards, shardCount] of [
        ['', {}, [0], 1], // docker compose's env_file passes an empty SHARD_COUNT= through
        ['auto', { SHARD_COUNT: 'auto' }, 'auto', 1],
        ['3', { SHARD_COUNT: '3', SHARD_IDS: '2' }, [2], 3],
      ] as const) {
        process.env.SHARD_COUNT = inEnvironment;
        const client = createDiscordClient(load(env).discord!);
        expect(client.options).toMatchObject({ shards, shardCount });
        void client.destroy();
      }
    } finally {
      if (saved === undefined) delete process.env.SHARD_COUNT;
      else process.env.SHARD_COUNT = saved;
    }
  });
});

describe('discord: Herald on several shards', () => {
  let h: Harness | undefined;

  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function answersEverywhere(harness: Harness, channels: string[]): Promise<void> {
    const { fake, mention } = harness;
    for (const [i, channelId] of [...channels, fake.textChannel.id].entries()) {
      fake.sendMessage({ channelId, content: `${mention} question ${i}` });
    }
    fake.sendMessage({ channelId: fake.dmChannel.id, content: 'a direct question' });
    await harness.repliesFinished(4);
    for (const [i, channelId] of [...channels, fake.textChannel.id].entries()) {
      expect(botContents(fake, channelId)).toEqual([`Echo: [Alice]: question ${i}`]);
    }
    expect(botContents(fake, fake.dmChannel.id)).toEqual(['Echo: a direct question']);
  }

  it('SHARD_COUNT=2: one process runs both shards and answers in the guilds of each, and DMs', async () => {
    let channels: string[] = [];
    h = await startHarness({
      fake: { maxConcurrency: 2, shardCount: 2 },
      env: (fake) => {
        channels = guildsOnTwoShards(fake);
        return { SHARD_COUNT: '2' };
      },
    });
    expect(identifiedShards(h.fake)).toEqual([
      [0, 2],
      [1, 2],
    ]);
    expect([...h.bot.client.ws.shards.keys()].sort()).toEqual([0, 1]);
    await answersEverywhere(h, channels);
  });

  it("SHARD_COUNT=auto: runs as many shards as Discord recommends, even with 'auto' in the process's environment", async () => {
    const saved = process.env.SHARD_COUNT;
    process.env.SHARD_COUNT = 'auto';
    let channels: string[] = [];
    try {
      h = await startHarness({
        fake: { recommendedShards: 2, maxConcurrency: 2, shardCount: 2 },
        env: (fake) => {
          channels = guildsOnTwoShards(fake);
          return { SHARD_COUNT: 'auto' };
        },
      });
    } finally {
      if (saved === undefined) delete process.env.SHARD_COUNT;
      else process.env.SHARD_COUNT = saved;
    }
    expect(identifiedShards(h.fake)).toEqual([
      [0, 2],
      [1, 2],
    ]);
    expect(h.bot.client.options.shardCount).toBe(2);
    await answersEverywhere(h, channels);
  });
});

const redisUp = await reachable(redisUrl);

describe.each([
  { shared: 'one memory store', redis: false, skip: false },
  { shared: redisUp ? `Redis at ${redisUrl}` : `Redis at ${redisUrl} (skipped: no redis-server there; set REDIS_URL)`, redis: true, skip: !redisUp },
])('discord: two Herald processes, SHARD_IDS=0 and SHARD_IDS=1, sharing $shared', ({ redis, skip }) => {
  let fake: FakeDiscord;
  let emu: Emulator;
  let store: MemoryStore | undefined;
  let instances: Instance[] = [];

  afterEach(async () => {
    for (const { bot, core } of instances) {
      await bot.stop();
      await core.close();
    }
    instances = [];
    await store?.close();
    await fake?.close();
    await emu?.close();
  });

  /** With Redis each instance opens its own connection from STORE_URL, as separate processes do. */
  async function start(env: Env = {}, shardIds = ['0', '1']): Promise<string[]> {
    emu = await startEmulator();
    fake = await startFakeDiscord({ heartbeatIntervalMs: 1000, shardCount: 2 });
    store = redis ? undefined : new MemoryStore();
    const channels = guildsOnTwoShards(fake);
    const shared = { SHARD_COUNT: '2', ...(redis && { STORE_URL: redisUrl }), ...env };
    instances = await Promise.all(shardIds.map((ids) => startInstance({ fake, emu, store, env: { ...shared, SHARD_IDS: ids } })));
    return channels;
  }

  const finished = () => instances.map((i) => i.finished);

  it.skipIf(skip)('each answers only the guilds of its shard (DMs: shard 0), every message exactly once', async () => {
    const channels = await start();
    expect(identifiedShards(fake)).toEqual([
      [0, 2],
      [1, 2],
    ]);
    const mention = `<@${fake.botUser.id}>`;
    fake.sendMessage({ channelId: channels[0]!, content: `${mention} for shard 0` });
    fake.sendMessage({ channelId: channels[1]!, content: `${mention} for shard 1` });
    fake.sendMessage({ channelId: fake.dmChannel.id, content: 'a direct question' });
    const homeShard = shardOf(fake.guild.id, 2);
    fake.sendMessage({ channelId: fake.textChannel.id, content: `${mention} in the first guild` });
    await fake.waitFor(() => finished()[0]! + finished()[1]! === 4, { timeoutMs: 15_000, description: 'four replies' });
    await new Promise((resolve) => setTimeout(resolve, 300)); // room for a duplicate answer to show up

    expect(finished()).toEqual(homeShard === 0 ? [3, 1] : [2, 2]);
    expect(botContents(fake, channels[0]!)).toEqual(['Echo: [Alice]: for shard 0']);
    expect(botContents(fake, channels[1]!)).toEqual(['Echo: [Alice]: for shard 1']);
    expect(botContents(fake, fake.dmChannel.id)).toEqual(['Echo: a direct question']);
    expect(botContents(fake, fake.textChannel.id)).toEqual(['Echo: [Alice]: in the first guild']);
    for (const [i, { bot }] of instances.entries()) {
      expect([...bot.client.ws.shards.keys()]).toEqual([i]);
      expect(bot.client.guilds.cache.has(fake.guild.id)).toBe(homeShard === i);
    }
  });

  it.skipIf(skip)("share quotas through the store: a user's requests on both shards count against one limit", async () => {
    const channels = await start({ QUOTA_USER_PER_MINUTE: '2' });
    const mention = `<@${fake.botUser.id}>`;
    for (const [i, channelId] of [channels[0]!, channels[1]!, channels[0]!].entries()) {
      fake.sendMessage({ channelId, content: `${mention} request ${i}` });
      await fake.waitFor(() => finished()[0]! + finished()[1]! === i + 1, { timeoutMs: 15_000, description: `reply ${i}` });
    }
    expect(botContents(fake, channels[1]!)).toEqual(['Echo: [Alice]: request 1']);
    const [first, third] = botContents(fake, channels[0]!);
    expect(first).toBe('Echo: [Alice]: request 0');
    expect(third).toMatch(/reached your limit of 2 requests per minute/);
  });

  it.skipIf(skip)('overlapping runs of one shard (a rolling deploy) answer each message once', async () => {
    const channels = await start({}, ['1', '1']);
    const mention = `<@${fake.botUser.id}>`;
    for (const i of [0, 1, 2]) fake.sendMessage({ channelId: channels[1]!, content: `${mention} question ${i}` });
    await fake.waitFor(() => finished()[0]! + finished()[1]! === 3, { timeoutMs: 15_000, description: 'three replies' });
    await new Promise((resolve) => setTimeout(resolve, 300)); // room for a duplicate answer to show up
    const asked = fake.dispatched('MESSAGE_CREATE').filter((e) => (e.d.author as { id: string }).id === fake.users.alice.id);
    expect(asked).toHaveLength(6); // both sessions of shard 1 got every question
    expect(botContents(fake, channels[1]!).sort()).toEqual([0, 1, 2].map((i) => `Echo: [Alice]: question ${i}`));
    expect(finished()[0]! + finished()[1]!).toBe(3);
  });
});
