import { ChannelType as DjsChannelType, GatewayDispatchEvents, type Client, type Message } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from './index.ts';
import { readyClient } from './test-client.ts';

describe('fake discord: login and gateway events with discord.js', () => {
  let fake: FakeDiscord;
  let client: Client | undefined;

  beforeEach(async () => {
    fake = await startFakeDiscord({ heartbeatIntervalMs: 200 });
  });

  afterEach(async () => {
    await client?.destroy();
    client = undefined;
    await fake.close();
  });

  it('logs in: READY then GUILD_CREATE fill the caches with channels, members and roles', async () => {
    client = await readyClient(fake);
    expect(client.user?.id).toBe(fake.botUser.id);
    expect(client.application?.id).toBe(fake.applicationId);
    const guild = client.guilds.cache.get(fake.guild.id);
    expect(guild?.name).toBe('Herald Test Guild');
    expect(guild?.channels.cache.get(fake.textChannel.id)?.type).toBe(DjsChannelType.GuildText);
    expect(guild?.channels.cache.get(fake.voiceChannel.id)?.type).toBe(DjsChannelType.GuildVoice);
    expect(guild?.members.me?.roles.cache.has(fake.roles.bot.id)).toBe(true);
    expect(guild?.roles.everyone.id).toBe(fake.guild.id);
    const identify = fake.gatewayReceived.find((p) => p.op === 2);
    expect((identify!.d as { token: string }).token).toBe(fake.token);
    expect(fake.requests.map((r) => `${r.method} ${r.route}`)).toContain('GET /gateway/bot');
  });

  it('answers heartbeats with ACKs so discord.js measures a ping', async () => {
    client = await readyClient(fake);
    await fake.waitFor(() => fake.gatewayReceived.filter((p) => p.op === 1).length >= 2, { description: 'two heartbeats' });
    await fake.waitFor(() => client!.ws.ping >= 0, { description: 'a measured ping' });
  });

  it('rejects a wrong token on REST like Discord (401), which discord.js reports as an invalid token', async () => {
    const { Client: DjsClient, GatewayIntentBits } = await import('discord.js');
    client = new DjsClient({ intents: [GatewayIntentBits.Guilds], rest: { api: fake.restUrl } });
    await expect(client.login('not-the-token')).rejects.toThrow(/token/i);
  });

  it('closes the gateway with 4014 when a privileged intent is not enabled for the app', async () => {
    await fake.close();
    fake = await startFakeDiscord({ privilegedIntents: { messageContent: false } });
    const { Client: DjsClient, GatewayIntentBits } = await import('discord.js');
    client = new DjsClient({ intents: [GatewayIntentBits.Guilds, GatewayIntentBits.MessageContent], rest: { api: fake.restUrl } });
    void client.login(fake.token).catch(() => undefined);
    await fake.waitFor(() => fake.gatewayConnections.find((c) => c.closeCode === 4014), { description: 'close 4014' });
  });

  it('delivers a user message as messageCreate with author, member, mentions and attachments', async () => {
    client = await readyClient(fake);
    const received = new Promise<Message>((resolve) => client!.on('messageCreate', resolve));
    fake.sendMessage({
      channelId: fake.textChannel.id,
      authorId: fake.users.alice.id,
      content: `hey <@${fake.botUser.id}> and <@${fake.users.bob.id}>`,
      attachments: [{ filename: 'note.txt', bytes: Buffer.from('hello file') }],
    });
    const message = await received;
    expect(message.author.id).toBe(fake.users.alice.id);
    expect(message.member?.id).toBe(fake.users.alice.id);
    expect(message.mentions.users.map((u) => u.id).sort()).toEqual([fake.botUser.id, fake.users.bob.id].sort());
    expect(message.mentions.has(fake.botUser.id)).toBe(true);
    const attachment = message.attachments.first();
    expect(attachment?.name).toBe('note.txt');
    const download = await fetch(attachment!.url);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('hello file');
  });

  it('withholds content from a bot without the MESSAGE_CONTENT intent unless it is mentioned', async () => {
    const { GatewayIntentBits } = await import('discord.js');
    client = await readyClient(fake, { intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages] });
    const contents: string[] = [];
    client.on('messageCreate', (m) => contents.push(m.content));
    fake.sendMessage({ channelId: fake.textChannel.id, content: 'secret chatter' });
    fake.sendMessage({ channelId: fake.textChannel.id, content: `<@${fake.botUser.id}> visible` });
    await fake.waitFor(() => contents.length === 2, { description: 'two messages' });
    expect(contents).toEqual(['', `<@${fake.botUser.id}> visible`]);
  });

  it('delivers DMs without a CHANNEL_CREATE, as Discord does, so the Channel partial is needed', async () => {
    client = await readyClient(fake);
    const received = new Promise<Message>((resolve) => client!.on('messageCreate', resolve));
    fake.sendMessage({ channelId: fake.dmChannel.id, content: 'private hello' });
    const message = await received;
    expect(message.channel.isDMBased()).toBe(true);
    expect(message.content).toBe('private hello');
    expect(fake.dispatched('CHANNEL_CREATE')).toHaveLength(0);
  });

  it('answers op 4 voice joins with VOICE_STATE_UPDATE and VOICE_SERVER_UPDATE at the configured endpoint', async () => {
    fake.setVoiceServer({ endpoint: '127.0.0.1:4242', token: 'voice-token' });
    client = await readyClient(fake);
    const serverUpdate = new Promise<unknown>((resolve) => client!.ws.on(GatewayDispatchEvents.VoiceServerUpdate, resolve));
    const stateUpdate = new Promise<unknown>((resolve) => client!.on('voiceStateUpdate', (_old, state) => resolve(state.channelId)));
    client.guilds.cache.get(fake.guild.id)!.shard.send({
      op: 4,
      d: { guild_id: fake.guild.id, channel_id: fake.voiceChannel.id, self_mute: false, self_deaf: true },
    });
    expect(await stateUpdate).toBe(fake.voiceChannel.id);
    expect(await serverUpdate).toEqual({ token: 'voice-token', guild_id: fake.guild.id, endpoint: '127.0.0.1:4242' });
    expect(fake.voiceRequests).toMatchObject([{ channelId: fake.voiceChannel.id, selfDeaf: true }]);
  });
});
