import type { Client, Message } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { shardOf, startFakeDiscord, type FakeDiscord, type GuildRecord } from './index.ts';
import { readyClient } from './test-client.ts';

const INTENTS = 1 | (1 << 9) | (1 << 12) | (1 << 15); // guilds, guild messages, direct messages, message content

/** A bare gateway connection that identifies with `shard` and reports what came back. */
async function identifyRaw(fake: FakeDiscord, shard?: unknown): Promise<{ closeCode: number | null; ready: Record<string, unknown> | null }> {
  const ws = new WebSocket(`${fake.gatewayUrl}?v=10&encoding=json`);
  let closeCode: number | null = null;
  let ready: Record<string, unknown> | null = null;
  ws.on('message', (data: Buffer) => {
    const payload = JSON.parse(data.toString()) as { t: string | null; d: Record<string, unknown> };
    if (payload.t === 'READY') ready = payload.d;
  });
  ws.on('close', (code) => {
    closeCode = code;
  });
  await new Promise((resolve) => ws.once('open', resolve));
  ws.send(JSON.stringify({ op: 2, d: { token: fake.token, intents: INTENTS, properties: {}, ...(shard !== undefined && { shard }) } }));
  await fake.waitFor(() => closeCode !== null || ready !== null, { description: 'READY or a close' });
  ws.close();
  return { closeCode, ready };
}

function collect(client: Client): string[] {
  const contents: string[] = [];
  client.on('messageCreate', (m: Message) => contents.push(m.content));
  return contents;
}

describe('fake discord: sharding like Discord', () => {
  let fake: FakeDiscord;
  const clients: Client[] = [];

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.destroy()));
    await fake.close();
  });

  /** Two more guilds, one per shard of two, each with a text channel alice writes in. */
  function guildsOnTwoShards(): { guilds: GuildRecord[]; channels: string[] } {
    const guilds = [0, 1].map((id) => fake.addGuild({ name: `shard ${id} guild`, memberIds: [fake.users.alice.id], shard: [id, 2] }));
    return { guilds, channels: guilds.map((g) => fake.addChannel({ guildId: g.id, name: 'general' }).id) };
  }

  it("recommends its shard count: discord.js with shards 'auto' runs that many, and each READY holds only its shard's guilds", async () => {
    fake = await startFakeDiscord({ recommendedShards: 2, maxConcurrency: 2 });
    const { guilds } = guildsOnTwoShards();
    const client = await readyClient(fake, { shards: 'auto' });
    clients.push(client);

    expect(client.options.shardCount).toBe(2);
    expect(
      fake.gatewayReceived
        .filter((p) => p.op === 2)
        .map((p) => (p.d as { shard: number[] }).shard)
        .sort(),
    ).toEqual([
      [0, 2],
      [1, 2],
    ]);
    const all = [fake.guild, ...guilds];
    for (const shard of [0, 1]) {
      const [ready] = fake.dispatched('READY').filter((e) => e.shard[0] === shard);
      const expected = all
        .filter((g) => shardOf(g.id, 2) === shard)
        .map((g) => g.id)
        .sort();
      expect((ready!.d.guilds as { id: string }[]).map((g) => g.id).sort()).toEqual(expected);
      expect(ready?.d.shard).toEqual([shard, 2]);
      expect(
        fake
          .dispatched('GUILD_CREATE')
          .filter((e) => e.shard[0] === shard)
          .map((e) => e.d.id)
          .sort(),
      ).toEqual(expected);
    }
    for (const guild of all) expect(client.guilds.cache.get(guild.id)?.shardId).toBe(shardOf(guild.id, 2));
  });

  it('sends each guild event only to the client running its shard, and direct messages to shard 0', async () => {
    fake = await startFakeDiscord({ heartbeatIntervalMs: 1000 });
    const { channels } = guildsOnTwoShards();
    const [zero, one] = [await readyClient(fake, { shards: [0], shardCount: 2 }), await readyClient(fake, { shards: [1], shardCount: 2 })];
    clients.push(zero, one);
    const seen = [collect(zero), collect(one)];

    fake.sendMessage({ channelId: channels[0]!, content: 'in the shard 0 guild' });
    fake.sendMessage({ channelId: channels[1]!, content: 'in the shard 1 guild' });
    fake.sendMessage({ channelId: fake.dmChannel.id, content: 'a direct message' });
    const joined = new Promise<string>((resolve) => one.on('guildCreate', (g) => resolve(g.name)));
    const later = fake.addGuild({ name: 'joined later', shard: [1, 2] });
    expect(await joined).toBe('joined later');
    await fake.waitFor(() => seen[0]!.length === 2 && seen[1]!.length === 1, { description: 'three messages delivered' });

    expect(seen).toEqual([['in the shard 0 guild', 'a direct message'], ['in the shard 1 guild']]);
    expect(zero.guilds.cache.has(later.id)).toBe(false);
    const routed = fake.dispatched('MESSAGE_CREATE').map((e) => [e.shard[0], e.d.content]);
    expect(routed.sort()).toEqual([
      [0, 'a direct message'],
      [0, 'in the shard 0 guild'],
      [1, 'in the shard 1 guild'],
    ]);
  });

  it('closes with 4010 Invalid shard for an id outside the count, or a count other than the one it requires', async () => {
    fake = await startFakeDiscord({ shardCount: 2 });
    expect((await identifyRaw(fake, [2, 2])).closeCode).toBe(4010);
    expect((await identifyRaw(fake, [0, 3])).closeCode).toBe(4010);
    expect((await identifyRaw(fake, 'zero')).closeCode).toBe(4010);
    expect((await identifyRaw(fake)).closeCode).toBe(4010);
    expect((await identifyRaw(fake, [1, 2])).ready?.shard).toEqual([1, 2]);
  });

  it('closes with 4011 Sharding required when one session would hold more guilds than a shard may', async () => {
    fake = await startFakeDiscord({ maxGuildsPerShard: 1 });
    fake.addGuild({ name: 'the other shard', shard: [1 - shardOf(fake.guild.id, 2), 2] });
    expect((await identifyRaw(fake)).closeCode).toBe(4011);
    const ready = await Promise.all([identifyRaw(fake, [0, 2]), identifyRaw(fake, [1, 2])]);
    expect(ready.map((r) => (r.ready!.guilds as unknown[]).length)).toEqual([1, 1]);
  });
});
