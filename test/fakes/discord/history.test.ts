import { DiscordAPIError, PermissionFlagsBits, type Client, type TextChannel } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelType, Permission, startFakeDiscord, type FakeDiscord } from './index.ts';
import { readyClient } from './test-client.ts';

const MINUTE = 60_000;

describe('fake discord: channel history through discord.js', () => {
  let fake: FakeDiscord;
  let client: Client;

  beforeAll(async () => {
    fake = await startFakeDiscord({ heartbeatIntervalMs: 1000 });
    const start = Date.now() - 1000 * MINUTE;
    fake.seedHistory(
      fake.textChannel.id,
      Array.from({ length: 600 }, (_, i) => ({ authorId: fake.users.alice.id, content: `message ${i}`, at: start + i * MINUTE })),
    );
    client = await readyClient(fake);
  });

  afterAll(async () => {
    await client.destroy();
    await fake.close();
  });

  const contents = (messages: Map<string, { content: string }>) => [...messages.values()].map((m) => m.content);

  it('pages back with before and forward with after, 100 at most, newest first; around centres on a message', async () => {
    const channel = client.channels.cache.get(fake.textChannel.id) as TextChannel;
    const newest = await channel.messages.fetch({ limit: 100, cache: false });
    expect(newest.size).toBe(100);
    expect(contents(newest).slice(0, 2)).toEqual(['message 599', 'message 598']);
    const older = await channel.messages.fetch({ limit: 100, before: newest.lastKey()!, cache: false });
    expect(contents(older).slice(0, 1)).toEqual(['message 499']);
    const first = fake.messages(fake.textChannel.id)[0]!;
    const after = await channel.messages.fetch({ limit: 3, after: first.id, cache: false });
    expect(contents(after)).toEqual(['message 3', 'message 2', 'message 1']);
    const middle = fake.messages(fake.textChannel.id)[300]!;
    const around = await channel.messages.fetch({ limit: 5, around: middle.id, cache: false });
    expect(contents(around)).toEqual(['message 302', 'message 301', 'message 300', 'message 299', 'message 298']);
  });

  it('refuses a limit outside 1-100 and a cursor that is no snowflake, as Invalid Form Body', async () => {
    const get = (query: string) =>
      fetch(`${fake.restUrl}/v10/channels/${fake.textChannel.id}/messages?${query}`, { headers: { authorization: `Bot ${fake.token}` } });
    const tooMany = await get('limit=101');
    expect(tooMany.status).toBe(400);
    expect(await tooMany.json()).toMatchObject({ code: 50035, errors: { limit: { _errors: [{ code: 'NUMBER_TYPE_MAX' }] } } });
    expect(((await (await get('limit=0')).json()) as { errors: { limit: { _errors: { code: string }[] } } }).errors.limit._errors[0]!.code).toBe(
      'NUMBER_TYPE_MIN',
    );
    expect((await get('before=yesterday')).status).toBe(400);
  });

  it('follows permission overwrites: a hidden channel is Missing Access, one without Read Message History reads as empty', async () => {
    const hidden = fake.addChannel({
      name: 'hidden',
      permissionOverwrites: [{ id: fake.botUser.id, type: 1, allow: '0', deny: String(Permission.ViewChannel) }],
    });
    const noHistory = fake.addChannel({
      name: 'no-history',
      type: ChannelType.GuildText,
      permissionOverwrites: [{ id: fake.guild.id, type: 0, allow: '0', deny: String(Permission.ReadMessageHistory) }],
    });
    fake.sendMessage({ channelId: noHistory.id, content: 'you cannot read me back' });
    await fake.waitFor(() => client.channels.cache.get(hidden.id) && client.channels.cache.get(noHistory.id));
    const guild = client.guilds.cache.get(fake.guild.id)!;
    const me = guild.members.me!;
    expect((client.channels.cache.get(hidden.id) as TextChannel).permissionsFor(me).has(PermissionFlagsBits.ViewChannel)).toBe(false);
    expect((client.channels.cache.get(noHistory.id) as TextChannel).permissionsFor(me).has(PermissionFlagsBits.ReadMessageHistory)).toBe(false);
    const missing = await (client.channels.cache.get(hidden.id) as TextChannel).messages.fetch({ limit: 10 }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(DiscordAPIError);
    expect((missing as DiscordAPIError).code).toBe(50001);
    expect((await (client.channels.cache.get(noHistory.id) as TextChannel).messages.fetch({ limit: 10, cache: false })).size).toBe(0);
  });
});
