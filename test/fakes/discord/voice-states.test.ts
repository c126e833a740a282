import { GatewayDispatchEvents, type Client, type VoiceState } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChannelType, startFakeDiscord, type FakeDiscord } from './index.ts';
import { readyClient } from './test-client.ts';

describe('fake discord: voice states and user limits as discord.js sees them', () => {
  let fake: FakeDiscord;
  let client: Client | undefined;

  beforeEach(async () => {
    fake = await startFakeDiscord({ heartbeatIntervalMs: 300 });
  });

  afterEach(async () => {
    await client?.destroy();
    client = undefined;
    await fake.close();
  });

  const joinAsBot = (channelId: string | null) =>
    client!.guilds.cache.get(fake.guild.id)!.shard.send({
      op: 4,
      d: { guild_id: fake.guild.id, channel_id: channelId, self_mute: false, self_deaf: true },
    });
  const nextVoiceState = (userId: string) =>
    new Promise<VoiceState>((resolve) => {
      const listener = (_old: VoiceState, state: VoiceState) => {
        if (state.id !== userId) return;
        client!.off('voiceStateUpdate', listener);
        resolve(state);
      };
      client!.on('voiceStateUpdate', listener);
    });

  it('gives voice channels their user limit and lists who is in them at login', async () => {
    const small = fake.addChannel({ name: 'Small', type: ChannelType.GuildVoice, userLimit: 2 });
    fake.setVoiceState({ userId: fake.users.alice.id, channelId: small.id });
    fake.setVoiceState({ userId: fake.users.bob.id, channelId: small.id });
    client = await readyClient(fake);
    const channel = client.channels.cache.get(small.id);
    if (!channel?.isVoiceBased()) throw new Error('Small is not a voice channel in discord.js');
    expect(channel.userLimit).toBe(2);
    expect([...channel.members.keys()].sort()).toEqual([fake.users.alice.id, fake.users.bob.id].sort());
    expect(channel.full).toBe(true);
    expect(channel.joinable).toBe(false); // the bot may neither move members nor manage channels
    const carol = fake.addUser({ username: 'carol' });
    fake.addMember({ userId: carol.id });
    expect(() => fake.setVoiceState({ userId: carol.id, channelId: small.id })).toThrow('Small is full (2/2)');
  });

  it("ignores the bot's join to a full channel, and carries it out once there is room", async () => {
    const small = fake.addChannel({ name: 'Small', type: ChannelType.GuildVoice, userLimit: 1 });
    fake.setVoiceState({ userId: fake.users.alice.id, channelId: small.id });
    client = await readyClient(fake);
    const dispatchesBefore = fake.dispatched().length;
    joinAsBot(small.id);
    await fake.waitFor(() => fake.voiceRequests.length === 1);
    expect(fake.voiceRequests[0]).toMatchObject({ channelId: small.id, refused: 'full' });
    expect(fake.dispatched().length).toBe(dispatchesBefore); // no VOICE_STATE_UPDATE, no VOICE_SERVER_UPDATE

    const left = nextVoiceState(fake.users.alice.id);
    fake.setVoiceState({ userId: fake.users.alice.id, channelId: null });
    expect((await left).channelId).toBeNull();
    const joined = nextVoiceState(fake.botUser.id);
    joinAsBot(small.id);
    expect((await joined).channelId).toBe(small.id);
    expect(fake.voiceRequests[1]).toMatchObject({ channelId: small.id, refused: null });
    expect(fake.dispatched('VOICE_SERVER_UPDATE')).toHaveLength(1);
  });

  it('lets a bot that may manage the channel into it when full', async () => {
    const small = fake.addChannel({
      name: 'Staff',
      type: ChannelType.GuildVoice,
      userLimit: 1,
      permissionOverwrites: [{ id: fake.roles.bot.id, type: 0, allow: (1n << 4n).toString(), deny: '0' }], // Manage Channels
    });
    fake.setVoiceState({ userId: fake.users.alice.id, channelId: small.id });
    client = await readyClient(fake);
    const joined = nextVoiceState(fake.botUser.id);
    joinAsBot(small.id);
    expect((await joined).channel?.members.size).toBe(2);
  });

  it('a moderator moving the bot sends its VOICE_STATE_UPDATE and a VOICE_SERVER_UPDATE for the new channel; a disconnect only the state', async () => {
    const other = fake.addChannel({ name: 'Other', type: ChannelType.GuildVoice });
    fake.setVoiceServer({ endpoint: '127.0.0.1:4001', token: 'first' });
    fake.setVoiceServer({ endpoint: '127.0.0.1:4002', token: 'second', channelId: other.id });
    client = await readyClient(fake);
    const servers: unknown[] = [];
    client.ws.on(GatewayDispatchEvents.VoiceServerUpdate, (data) => servers.push(data));
    const joined = nextVoiceState(fake.botUser.id);
    joinAsBot(fake.voiceChannel.id);
    const session = (await joined).sessionId;

    const moved = nextVoiceState(fake.botUser.id);
    fake.moveMember({ userId: fake.botUser.id, channelId: other.id });
    expect(await moved).toMatchObject({ channelId: other.id, sessionId: session });
    await fake.waitFor(() => servers.length === 2);
    expect(servers).toEqual([
      { token: 'first', guild_id: fake.guild.id, endpoint: '127.0.0.1:4001' },
      { token: 'second', guild_id: fake.guild.id, endpoint: '127.0.0.1:4002' },
    ]);

    const disconnected = nextVoiceState(fake.botUser.id);
    fake.moveMember({ userId: fake.botUser.id, channelId: null });
    expect(await disconnected).toMatchObject({ channelId: null, sessionId: session });
    expect(fake.dispatched('VOICE_SERVER_UPDATE')).toHaveLength(2);
    expect(fake.voiceRequests).toHaveLength(1); // the bot itself asked only to join
  });

  it("keeps a member's voice session across moves, and moderators may fill a channel past its limit", async () => {
    const small = fake.addChannel({ name: 'Small', type: ChannelType.GuildVoice, userLimit: 1 });
    fake.setVoiceState({ userId: fake.users.alice.id, channelId: small.id });
    fake.setVoiceState({ userId: fake.users.bob.id, channelId: fake.voiceChannel.id });
    client = await readyClient(fake);
    const session = client.guilds.cache.get(fake.guild.id)!.voiceStates.cache.get(fake.users.bob.id)!.sessionId;
    const moved = nextVoiceState(fake.users.bob.id);
    fake.moveMember({ userId: fake.users.bob.id, channelId: small.id });
    expect(await moved).toMatchObject({ channelId: small.id, sessionId: session });
    const channel = client.channels.cache.get(small.id);
    expect(channel?.isVoiceBased() && channel.members.size).toBe(2);
  });
});
