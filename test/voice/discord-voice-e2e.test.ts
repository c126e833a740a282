import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiscordBot } from '../../adapters/discord/index.ts';
import { opusFrameStream } from '../../src/media/speech/opus-frame-stream.ts';
import type { FakeVoiceServer } from '../fakes/discord-voice/index.ts';
import type { FakeDiscord } from '../fakes/discord/index.ts';
import type { Emulator } from '../fakes/service/emulator.ts';
import { synthesize as emulatorSpeech } from '../fakes/service/tts.ts';
import { startVoiceBotWorld, type VoiceBotWorld } from './voice-bot-world.ts';

const CHUNK_INTERVAL_MS = 60;
const EMPTY_GRACE_MS = 400;
const EMULATOR_CHUNK_SIZES = [4801, 2399, 3333, 1201, 5999, 777];

let world: VoiceBotWorld;
let emu: Emulator;
let fake: FakeDiscord;
let bot: DiscordBot;
let voice: FakeVoiceServer;

beforeAll(async () => {
  world = await startVoiceBotWorld({
    emulator: { pace: { tokensPerSecond: 0, ttsChunkIntervalMs: CHUNK_INTERVAL_MS } },
    voice: { link: { recoverTimeoutMs: 500, rejoinDelayMs: 50 }, emptyChannelGraceMs: EMPTY_GRACE_MS },
  });
  ({ emu, fake, bot, voice } = world);
});

afterAll(() => world?.close());

const botTexts = () => world.botTexts(fake.textChannel.id);
const waitForReply = (text: string) => fake.waitFor(() => botTexts().includes(text), { timeoutMs: 10_000, description: text });

/** The emulator's speech for `text` as the Opus packets Herald should send, and how many chunks it streams. */
async function expectedSpeech(text: string): Promise<{ packets: Buffer[]; chunks: number }> {
  const { pcm } = emulatorSpeech(text, 0);
  const packets: Buffer[] = [];
  for await (const packet of opusFrameStream(
    (async function* () {
      yield pcm;
    })(),
  ))
    packets.push(packet);
  let chunks = 0;
  for (let at = 0; at < pcm.length; at += EMULATOR_CHUNK_SIZES[chunks++ % EMULATOR_CHUNK_SIZES.length]!);
  return { packets, chunks };
}

describe('Discord voice end to end: fake Discord, fake voice server with DAVE, the service emulator', () => {
  it('/say format:voice speaks live: packets reach the voice server before the service has finished streaming', async () => {
    const text = 'Hello everyone, Herald speaking live in the voice channel.';
    const expected = await expectedSpeech(text);
    const clockOffset = Date.now() - performance.now();
    fake.invokeCommand({ name: 'say', options: { text, format: 'voice' } });

    const [first] = await voice.waitForPackets(1, 10_000);
    const request = emu.requests.find((r) => (r.body as { audio?: { format?: string } }).audio?.format === 'pcm16')!;
    // The emulator spaces its chunks, so it cannot have finished before this.
    const streamEndsNoEarlierThan = request.receivedAt + (expected.chunks - 1) * CHUNK_INTERVAL_MS;
    expect(first!.arrivedAt + clockOffset).toBeLessThan(streamEndsNoEarlierThan - 500);
    await waitForReply('🔊 Speaking in Voice.');

    const received = await voice.waitForPackets(expected.packets.length, 15_000);
    expect(received.map((packet) => packet.opus)).toEqual(expected.packets);
    expect(received.every((packet) => packet.e2ee)).toBe(true);
    expect(voice.daveGroupMembers()).toEqual([fake.users.alice.id]);
    expect(fake.voiceRequests[0]).toMatchObject({ channelId: fake.voiceChannel.id, selfDeaf: true });
  });

  it('answers clearly when the user is not in a voice channel', async () => {
    fake.invokeCommand({ name: 'say', userId: fake.users.bob.id, options: { text: 'hi', format: 'voice' } });
    await waitForReply('⚠️ Join a voice channel first, then ask again.');
  });

  it('/stop silences the bot mid-speech', async () => {
    const before = voice.received.length;
    fake.invokeCommand({
      name: 'say',
      options: { text: 'This is a long speech that nobody wants to hear to the very end, really.', format: 'voice' },
    });
    await voice.waitForPackets(before + 10, 10_000);
    fake.invokeCommand({ name: 'stop' });
    await waitForReply('⏹️ Stopped.');
    const atStop = voice.received.length;
    await fake.waitFor(() => voice.speaking.at(-1)?.speaking === 0, { description: 'the bot done speaking' });
    expect(voice.received.length - atStop).toBeLessThanOrEqual(2); // at most what was already in flight
  });

  it('rejoins after the voice connection drops, and keeps speaking', async () => {
    const before = voice.received.length;
    const identifies = voice.payloads.filter((payload) => payload.op === 0).length;
    const text = 'Speaking through a dropped voice connection and out the other side.';
    const expected = await expectedSpeech(text);
    fake.invokeCommand({ name: 'say', options: { text, format: 'voice' } });
    await voice.waitForPackets(before + 10, 10_000);
    voice.dropConnection(4006); // not resumable; Discord answers the library's own rejoin with no new server
    await fake.waitFor(() => voice.payloads.filter((payload) => payload.op === 0).length > identifies, 5_000);
    await fake.waitFor(() => voice.received.slice(before).some((packet) => packet.opus.equals(expected.packets.at(-1)!)), 15_000);
    const spoken = voice.received.slice(before).map((packet) => packet.opus);
    expect(spoken.length).toBeGreaterThanOrEqual(expected.packets.length - 2);
    expect(spoken.slice(-30)).toEqual(expected.packets.slice(-30));
  });

  it('narrates new messages of the text channel, skipping bots and commands', async () => {
    fake.invokeCommand({ name: 'narrate', subcommand: 'start' });
    await waitForReply('🎙️ Reading new messages of #general aloud in 🔊 Voice. Bots and commands are skipped; `/narrate stop` ends it.');
    const before = emu.requests.length;
    fake.sendMessage({ channelId: fake.textChannel.id, authorId: fake.users.bob.id, content: '!roll d20' });
    fake.sendMessage({
      channelId: fake.textChannel.id,
      authorId: fake.users.bob.id,
      content: 'Good evening, friends',
      attachments: [{ filename: 'sunset.png', bytes: Buffer.from('89504e470d0a1a0a', 'hex') }],
    });
    await fake.waitFor(() => emu.requests.length > before, 5_000);
    const spoken = emu.requests.slice(before).map((r) => (r.body as { messages: { content: string }[] }).messages.at(-1)!.content);
    expect(spoken).toEqual(['Bob says: Good evening, friends. And an image.']);
    fake.invokeCommand({ name: 'narrate', subcommand: 'stop' });
    await waitForReply('🔇 Narration stopped.');
  });

  it('keeps narrating when the last person drops out and comes straight back', async () => {
    fake.invokeCommand({ name: 'narrate', subcommand: 'start' });
    await fake.waitFor(() => botTexts().filter((t) => t.startsWith('🎙️ Reading new messages of #general')).length >= 2, 10_000);
    const joins = fake.voiceRequests.length;
    const guild = bot.client.guilds.cache.get(fake.guild.id)!;
    fake.setVoiceState({ userId: fake.users.alice.id, channelId: null });
    await fake.waitFor(() => guild.voiceStates.cache.get(fake.users.alice.id)?.channelId === null);
    fake.setVoiceState({ userId: fake.users.alice.id, channelId: fake.voiceChannel.id });
    await fake.waitFor(() => guild.voiceStates.cache.get(fake.users.alice.id)?.channelId === fake.voiceChannel.id);
    await new Promise((resolve) => setTimeout(resolve, EMPTY_GRACE_MS + 300));
    expect(fake.voiceRequests.length).toBe(joins); // it never left
    const before = emu.requests.length;
    fake.sendMessage({ channelId: fake.textChannel.id, authorId: fake.users.bob.id, content: 'Welcome back, Alice' });
    await fake.waitFor(() => emu.requests.length > before, 5_000);
    expect((emu.requests.at(-1)!.body as { messages: { content: string }[] }).messages.at(-1)!.content).toBe('Bob says: Welcome back, Alice.');
    fake.invokeCommand({ name: 'narrate', subcommand: 'stop' });
    await fake.waitFor(() => botTexts().filter((t) => t === '🔇 Narration stopped.').length >= 2, 10_000);
  });

  it('leaves the voice channel, ending narration, when the last person leaves it', async () => {
    fake.invokeCommand({ name: 'narrate', subcommand: 'start', options: { style: 'calm' } });
    await waitForReply('🎙️ Reading new messages of #general aloud in 🔊 Voice (style: calm). Bots and commands are skipped; `/narrate stop` ends it.');
    fake.setVoiceState({ userId: fake.users.alice.id, channelId: null });
    await fake.waitFor(() => fake.voiceRequests.at(-1)?.channelId === null, 5_000);
    const before = { speech: emu.requests.length, joins: fake.voiceRequests.length };
    const seen = new Promise((resolve) => bot.client.once('messageCreate', resolve)); // after Herald's own listeners
    fake.sendMessage({ channelId: fake.textChannel.id, authorId: fake.users.bob.id, content: 'Is anyone listening?' });
    await seen;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect({ speech: emu.requests.length, joins: fake.voiceRequests.length }).toEqual(before); // no rejoin, nothing said
  });
});
