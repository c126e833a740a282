import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerCommands, startDiscord, type DiscordBot } from '../../adapters/discord/index.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createCore, type Core } from '../../src/core.ts';
import { opusFrameStream } from '../../src/media/speech/opus-frame-stream.ts';
import type { FakeVoiceServer } from '../fakes/discord-voice/index.ts';
import { ChannelType, startFakeDiscord, type ChannelRecord, type FakeDiscord, type UserRecord } from '../fakes/discord/index.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';
import { synthesize as emulatorSpeech } from '../fakes/service/tts.ts';
import { silentLogger } from '../helpers/logger.ts';
import { startBotVoiceServer } from './voice-bot-world.ts';

const IDLE_TIMEOUT_MS = 2_500;
const EMPTY_GRACE_MS = 400;

let emu: Emulator;
let fake: FakeDiscord;
let core: Core;
let bot: DiscordBot;
let lounge: ChannelRecord;
let small: ChannelRecord;
let carol: UserRecord;
let dave: UserRecord;
/** One fake voice server per channel: Discord hands out a new voice session (and maybe server) for each channel entered. */
let voice: { main: FakeVoiceServer; lounge: FakeVoiceServer; small: FakeVoiceServer; empty: FakeVoiceServer };
let empty: ChannelRecord;

// Every test starts from the same world: the bot in no voice channel, Alice in Voice, Bob in Lounge, Carol and Dave
// filling Small, nobody in Empty.
beforeEach(async () => {
  emu = await startEmulator();
  fake = await startFakeDiscord({ heartbeatIntervalMs: 1000 });
  lounge = fake.addChannel({ name: 'Lounge', type: ChannelType.GuildVoice });
  small = fake.addChannel({ name: 'Small', type: ChannelType.GuildVoice, userLimit: 2 });
  empty = fake.addChannel({ name: 'Empty', type: ChannelType.GuildVoice });
  carol = fake.addUser({ username: 'carol', globalName: 'Carol' });
  dave = fake.addUser({ username: 'dave', globalName: 'Dave' });
  for (const user of [carol, dave]) fake.addMember({ userId: user.id });
  fake.setVoiceState({ userId: fake.users.alice.id, channelId: fake.voiceChannel.id });
  fake.setVoiceState({ userId: fake.users.bob.id, channelId: lounge.id });
  fake.setVoiceState({ userId: carol.id, channelId: small.id });
  fake.setVoiceState({ userId: dave.id, channelId: small.id });

  const config = loadConfig(
    { API_BASE_URL: emu.url, API_KEY: emu.apiKey, STORE_URL: 'memory://', DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.restUrl },
    { envFile: '/nonexistent/.env' },
  );
  core = await createCore(config, silentLogger);
  await registerCommands(config, { guildId: fake.guild.id });
  bot = await startDiscord({ core, logger: silentLogger, voice: { idleTimeoutMs: IDLE_TIMEOUT_MS, emptyChannelGraceMs: EMPTY_GRACE_MS } });
  const serve = (channel: ChannelRecord, users: string[]) => startBotVoiceServer(fake, users, { channel, token: `voice-token-${channel.name}` });
  voice = {
    main: await serve(fake.voiceChannel, [fake.users.alice.id]),
    lounge: await serve(lounge, [fake.users.bob.id]),
    small: await serve(small, [carol.id]), // dave leaves before the bot gets in
    empty: await serve(empty, []),
  };
});

afterEach(async () => {
  await bot?.stop();
  await core?.close();
  for (const server of Object.values(voice ?? {})) await server.close();
  await fake?.close();
  await emu?.close();
});

const botTexts = () =>
  fake
    .messages(fake.textChannel.id)
    .filter((m) => m.authorId === fake.botUser.id)
    .map((m) => m.content);
const replies = (text: string) => botTexts().filter((content) => content === text).length;
const waitForReplies = (text: string, count: number) =>
  fake.waitFor(() => replies(text) >= count, { timeoutMs: 10_000, description: `${count} × ${text}` });
const say = (text: string, userId = fake.users.alice.id) => fake.invokeCommand({ name: 'say', userId, options: { text, format: 'voice' } });
const syntheses = () => emu.requests.filter((r) => (r.body as { audio?: { format?: string } }).audio?.format === 'pcm16').length;
const botVoiceChannel = () => bot.client.guilds.cache.get(fake.guild.id)?.members.me?.voice.channelId ?? null;

/** The Opus packets Herald should send for the emulator's speech of `text`. */
async function expectedPackets(text: string): Promise<Buffer[]> {
  const { pcm } = emulatorSpeech(text, 0);
  const packets: Buffer[] = [];
  for await (const packet of opusFrameStream(
    (async function* () {
      yield pcm;
    })(),
  ))
    packets.push(packet);
  return packets;
}

const arrived = (server: FakeVoiceServer, packet: Buffer, from = 0) => server.received.slice(from).some((p) => p.opus.equals(packet));

/** Waits until the speech ending with `last` has arrived and the bot has stopped speaking. */
async function spoken(server: FakeVoiceServer, last: Buffer, from = 0): Promise<void> {
  await fake.waitFor(() => arrived(server, last, from), { timeoutMs: 10_000, description: 'the end of the speech' });
  await fake.waitFor(() => server.speaking.at(-1)?.speaking === 0, { description: 'the bot done speaking' });
}

/** Has the bot speak in Voice and a moderator move it to Lounge, where it finishes the speech. */
async function movedToLounge(): Promise<void> {
  const text = 'Herald is on its way to the lounge.';
  const expected = await expectedPackets(text);
  say(text);
  await voice.main.waitForPackets(1, 10_000);
  await waitForReplies('🔊 Speaking in Voice.', 1);
  fake.moveMember({ userId: fake.botUser.id, channelId: lounge.id });
  await spoken(voice.lounge, expected.at(-1)!);
}

describe('Discord voice end to end: the bot moved, disconnected, or kept out of a full channel', () => {
  it('follows a moderator moving it mid-speech: the speech goes on in the new channel, end-to-end encrypted, without a rejoin', async () => {
    const text = 'Herald keeps talking while a moderator drags it over to the lounge.';
    const expected = await expectedPackets(text);
    say(text);
    await voice.main.waitForPackets(15, 10_000);
    await waitForReplies('🔊 Speaking in Voice.', 1);
    fake.moveMember({ userId: fake.botUser.id, channelId: lounge.id });

    await spoken(voice.lounge, expected.at(-1)!);
    const before = voice.main.received.map((p) => p.opus);
    const after = voice.lounge.received.map((p) => p.opus);
    expect(before.length).toBeGreaterThanOrEqual(15);
    expect(before).toEqual(expected.slice(0, before.length));
    expect(after).toEqual(expected.slice(-after.length)); // the rest, from where it was, none twice
    expect(before.length + after.length).toBeGreaterThanOrEqual(expected.length - 2); // at most what was in flight
    expect(voice.lounge.received.every((packet) => packet.e2ee)).toBe(true); // not a packet before the new call's DAVE group
    expect(voice.lounge.daveGroupMembers()).toEqual([fake.users.bob.id]);
    expect(fake.voiceRequests.map((request) => request.channelId)).toEqual([fake.voiceChannel.id]); // Herald asked for nothing
    expect(botTexts().filter((content) => content.startsWith('⚠️'))).toEqual([]);
  });

  it('a /say from someone in the new channel plays there without rejoining, and /stop silences it there', async () => {
    await movedToLounge();
    const from = voice.lounge.received.length;
    say('Bob would like to hear this sentence read out in the lounge, all of it.', fake.users.bob.id);
    await waitForReplies('🔊 Speaking in Lounge.', 1);
    await voice.lounge.waitForPackets(from + 10, 10_000);
    fake.invokeCommand({ name: 'stop', userId: fake.users.bob.id });
    await waitForReplies('⏹️ Stopped.', 1);
    const atStop = voice.lounge.received.length;
    await fake.waitFor(() => voice.lounge.speaking.at(-1)?.speaking === 0, { description: 'the bot done speaking' });
    expect(voice.lounge.received.length - atStop).toBeLessThanOrEqual(2); // at most what was already in flight
    expect(fake.voiceRequests).toHaveLength(1);
  });

  it('leaves the new channel once idle; a /say from the old channel then joins back there as usual', async () => {
    await movedToLounge();
    await fake.waitFor(() => fake.voiceRequests.at(-1)?.channelId === null, { timeoutMs: IDLE_TIMEOUT_MS + 3_000, description: 'the idle leave' });
    await fake.waitFor(() => botVoiceChannel() === null && voice.lounge.session()?.connected === false);

    const text = 'Back in the voice channel.';
    const expected = await expectedPackets(text);
    const from = voice.main.received.length;
    say(text);
    await waitForReplies('🔊 Speaking in Voice.', 2);
    await spoken(voice.main, expected.at(-1)!, from);
    expect(fake.voiceRequests.at(-1)).toMatchObject({ channelId: fake.voiceChannel.id, refused: null });
    expect(botVoiceChannel()).toBe(fake.voiceChannel.id);
  });

  it('disconnected by a moderator, it ends every speech with the reason at once, rejoins nothing, and a later /say starts afresh', async () => {
    const disconnected = '⚠️ I was disconnected from the voice channel.';
    const from = voice.main.received.length;
    say('A long announcement that a moderator is about to cut short, rather rudely.');
    await waitForReplies('🔊 Speaking in Voice.', 1);
    await voice.main.waitForPackets(from + 10, 10_000);
    say('And this one waits for its turn.');
    await waitForReplies('🔊 Queued in Voice: 1 speech before yours.', 1);
    const before = { syntheses: syntheses(), requests: fake.voiceRequests.length };

    const at = performance.now();
    fake.moveMember({ userId: fake.botUser.id, channelId: null });
    voice.main.dropConnection(4014); // the voice server ends the call as the gateway announces it
    await waitForReplies(disconnected, 2);
    expect(performance.now() - at).toBeLessThan(2_000); // not the 5 s the link waits after a bare 4014 for signs of a move
    expect(fake.voiceRequests.slice(before.requests).map((request) => request.channelId)).toEqual([null]); // no way back in

    const text = 'Hello again.';
    const expected = await expectedPackets(text);
    const again = voice.main.received.length;
    say(text);
    await waitForReplies('🔊 Speaking in Voice.', 2); // nothing ahead of it: no speech stuck "playing"
    await spoken(voice.main, expected.at(-1)!, again);
    expect(replies(disconnected)).toBe(2);
    expect(syntheses()).toBe(before.syntheses + 1); // only this one: the speech that waited was never synthesized
  });

  it('refuses a full voice channel with a clear message and queues nothing; once someone leaves, it joins', async () => {
    const before = { syntheses: syntheses(), requests: fake.voiceRequests.length };
    say('Can you hear me?', carol.id);
    await waitForReplies("⚠️ 🔊 Small is full (2/2), so I can't join it.", 1);
    expect({ syntheses: syntheses(), requests: fake.voiceRequests.length }).toEqual(before);

    fake.setVoiceState({ userId: dave.id, channelId: null });
    const guild = bot.client.guilds.cache.get(fake.guild.id)!;
    await fake.waitFor(() => guild.voiceStates.cache.get(dave.id)?.channelId === null);
    const text = 'Can you hear me now?';
    const expected = await expectedPackets(text);
    say(text, carol.id);
    await waitForReplies('🔊 Speaking in Small.', 1);
    await spoken(voice.small, expected.at(-1)!);
    expect(fake.voiceRequests.at(-1)).toMatchObject({ channelId: small.id, refused: null });
  });

  it('moved into a channel with nobody in it, it stops speaking and leaves once the grace period is over', async () => {
    fake.setVoiceState({ userId: dave.id, channelId: null });
    const guild = bot.client.guilds.cache.get(fake.guild.id)!;
    await fake.waitFor(() => guild.voiceStates.cache.get(dave.id)?.channelId === null);
    const from = voice.small.received.length;
    say('A long story for Carol that a moderator sends off into an empty room before it is over.', carol.id);
    await waitForReplies('🔊 Speaking in Small.', 1);
    await voice.small.waitForPackets(from + 10, 10_000);
    const requests = fake.voiceRequests.length;
    const at = performance.now();
    fake.moveMember({ userId: fake.botUser.id, channelId: empty.id });
    await fake.waitFor(() => fake.voiceRequests.length > requests && fake.voiceRequests.at(-1)?.channelId === null, {
      timeoutMs: 5_000,
      description: 'the leave from the empty channel',
    });
    expect(performance.now() - at).toBeGreaterThanOrEqual(EMPTY_GRACE_MS - 50);
    expect(performance.now() - at).toBeLessThan(IDLE_TIMEOUT_MS); // not the idle leave
    await fake.waitFor(() => botVoiceChannel() === null);
    expect(fake.voiceRequests.slice(requests).map((request) => request.channelId)).toEqual([null]);
  });
});
