import type { Client } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscordWorkspace } from '../../adapters/discord/workspace-history.ts';
import { HistoryCache } from '../../src/workspace/history-cache.ts';
import { ChannelType, startFakeDiscord, type ChannelRecord, type FakeDiscord, type MessageRecord } from '../fakes/discord/index.ts';
import { readyClient } from '../fakes/discord/test-client.ts';

const MINUTE = 60_000;

describe('discord: reading a channel’s history for one asker', () => {
  let fake: FakeDiscord;
  let client: Client;
  let seeded: MessageRecord[];
  let thread: ChannelRecord;
  const never = new AbortController().signal;

  beforeAll(async () => {
    fake = await startFakeDiscord({ heartbeatIntervalMs: 1000 });
    const start = Date.now() - 300 * MINUTE;
    seeded = fake.seedHistory(
      fake.textChannel.id,
      Array.from({ length: 250 }, (_, i) => ({
        authorId: fake.users.bob.id,
        content: i === 7 ? `<@${fake.users.alice.id}> see the doc` : `message ${i}`,
        at: start + i * MINUTE,
      })),
    );
    thread = fake.addChannel({ name: 'release thread', type: ChannelType.PublicThread, parentId: fake.textChannel.id });
    fake.seedHistory(thread.id, [{ authorId: fake.users.alice.id, content: 'in the thread', at: Date.now() - MINUTE }]);
    client = await readyClient(fake);
  });

  afterAll(async () => {
    await client.destroy();
    await fake.close();
  });

  function workspace(options: { maxPages?: number; denyChannels?: string[] } = {}): DiscordWorkspace {
    const access = options.denyChannels && {
      allowGuilds: [],
      denyGuilds: [],
      allowChannels: [],
      denyChannels: options.denyChannels,
      allowRoles: [],
      denyRoles: [],
      directMessages: 'all' as const,
    };
    return new DiscordWorkspace({
      client,
      askerId: fake.users.alice.id,
      place: { channelId: fake.textChannel.id, isDirectMessage: false },
      access,
      guildId: fake.guild.id,
      cache: new HistoryCache({ ttlMs: MINUTE }),
      maxPages: options.maxPages ?? 10,
    });
  }

  it('reads the newest messages oldest first, mentions as names, and says how far back it got when the pages ran out', async () => {
    const full = await workspace().read({ channelId: fake.textChannel.id, limit: 1000 }, never);
    expect(full.messages).toHaveLength(250);
    expect(full.cutShort).toBeUndefined();
    expect(full.messages[7]).toMatchObject({ text: '@Alice see the doc', author: 'Bob', channelName: 'general', isBot: false });
    expect(full.messages[0]!.link).toBe(`https://discord.com/channels/${fake.guild.id}/${fake.textChannel.id}/${seeded[0]!.id}`);
    const cut = await workspace({ maxPages: 2 }).read({ channelId: fake.textChannel.id, limit: 1000 }, never);
    expect(cut.messages.map((m) => m.text).slice(0, 1)).toEqual(['message 50']);
    expect(cut.cutShort).toMatch(
      /^There is more history than I read for one question: I read the latest 200 messages \(back to \d{4}-\d\d-\d\d \d\d:\d\d UTC\)\.$/,
    );
    const newest = await workspace().read({ channelId: fake.textChannel.id, limit: 30 }, never);
    expect(newest.messages.map((m) => m.text).slice(0, 1)).toEqual(['message 220']);
    expect(newest.cutShort).toBeUndefined();
  });

  it('bounds a read by time or by its first message, and reads a thread as part of its channel', async () => {
    const since = await workspace().read({ channelId: fake.textChannel.id, since: seeded[240]!.createdAt, limit: 1000 }, never);
    expect(since.messages.map((m) => m.text)).toEqual(Array.from({ length: 10 }, (_, i) => `message ${240 + i}`));
    const from = await workspace().read({ channelId: fake.textChannel.id, fromId: seeded[245]!.id, limit: 1000 }, never);
    expect(from.messages).toHaveLength(5);
    const inThread = await workspace().read({ channelId: fake.textChannel.id, threadId: thread.id, limit: 100 }, never);
    expect(inThread.messages).toEqual([
      expect.objectContaining({ text: 'in the thread', channelId: fake.textChannel.id, threadId: thread.id, channelName: 'general' }),
    ]);
  });

  it("follows the operator's deny list", async () => {
    await expect(workspace({ denyChannels: [fake.textChannel.id] }).read({ channelId: fake.textChannel.id, limit: 10 }, never)).rejects.toThrow(
      "I'm not allowed to read #general here.",
    );
  });
});
