import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiscordBot } from '../../adapters/discord/index.ts';
import type { Core } from '../../src/core.ts';
import { TALK_FIXTURES, talkFixture, type FakeVoiceServer, type TalkFixture } from '../fakes/discord-voice/index.ts';
import type { FakeDiscord } from '../fakes/discord/index.ts';
import type { Emulator } from '../fakes/service/emulator.ts';
import { startVoiceBotWorld, type VoiceBotWorld } from './voice-bot-world.ts';

/** What the emulator's speech recognition hears in each recording ("long N": the emulator answers N words). */
const WORDS: Partial<Record<TalkFixture, string>> = {
  'capital-of-france-a': 'Herald, tell me about France, long 60',
  'time-in-tokyo-b': TALK_FIXTURES['time-in-tokyo-b'],
  'tell-me-a-joke-b': TALK_FIXTURES['tell-me-a-joke-b'],
};

let world: VoiceBotWorld;
let emu: Emulator;
let fake: FakeDiscord;
let core: Core;
let bot: DiscordBot;
let voice: FakeVoiceServer;

beforeAll(async () => {
  world = await startVoiceBotWorld({ withBob: true });
  ({ emu, fake, core, bot, voice } = world);
  for (const [name, words] of Object.entries(WORDS)) emu.recognizer.register(words, talkFixture(name as TalkFixture));
});

afterAll(() => world?.close());

const waitForText = (channelId: string, text: string) =>
  fake.waitFor(() => world.botTexts(channelId).some((content) => content.includes(text)), { timeoutMs: 15_000, description: text });
const transcriptions = () => emu.requests.filter((request) => (request.body as { model?: string }).model === core.config.models.asr).length;

describe('Talking with Herald in a voice channel: real discord.js and @discordjs/voice, fake Discord and voice server, the emulator', () => {
  it('refuses /talk while listening is off in the server', async () => {
    fake.invokeCommand({ name: 'talk', subcommand: 'start' });
    await waitForText(fake.textChannel.id, '⚠️ Listening in voice channels is off in this server');
    expect(fake.voiceRequests).toEqual([]);
  });

  it('answers a question asked aloud, aloud in the same channel, and posts the transcripts when asked', async () => {
    const { alice } = fake.users;
    const allowed = fake.invokeCommand({ name: 'settings', userId: fake.users.owner.id, options: { voice_listening: 'on' } });
    const saved = await fake.waitFor(() => (allowed.originalMessageId ? fake.message(allowed.originalMessageId) : undefined), {
      description: '/settings saved',
    });
    expect(saved.content).toContain('listening in voice: on');
    fake.invokeCommand({ name: 'talk', subcommand: 'start', options: { transcript: true } });
    await waitForText(fake.textChannel.id, '🎙️ Listening in 🔊 Voice.');
    await waitForText(
      fake.voiceChannel.id,
      `**Herald is listening and transcribing** in this channel, started by ${alice.globalName ?? alice.username}`,
    );
    await fake.waitFor(() => fake.voiceRequests.at(-1)?.selfDeaf === false, { description: 'the bot undeafened to listen' });

    // Written at 60 tokens a second, the 60-word answer takes over a second: its first sentence is heard before that.
    emu.pace.tokensPerSecond = 60;
    await voice.speak(alice.id, talkFixture('capital-of-france-a'));
    await voice.waitForPackets(1, 15_000);
    expect(world.botTexts(fake.voiceChannel.id).filter((text) => text.startsWith('🔊'))).toEqual([]);
    emu.pace.tokensPerSecond = 0;
    await waitForText(fake.voiceChannel.id, '🗣️ **Alice:** Herald, tell me about France, long 60');
    await waitForText(fake.voiceChannel.id, '🔊 **Herald:** ');
    expect(voice.received.every((packet) => packet.e2ee)).toBe(true);
    const asked = emu.requests.find((request) => JSON.stringify(request.body).includes('tell me about France'))!.body as {
      messages: { role: string; content: string }[];
      thinking?: { type: string };
    };
    expect(asked.messages[0]!.content).toContain('your answer is spoken aloud');
    expect(asked.messages.at(-1)!.content).toBe('[Alice]: Herald, tell me about France, long 60');
    expect(asked.thinking).toEqual({ type: 'disabled' });
  });

  it('pauses while a second person speaks over it, and goes on when that was not a turn for Herald', async () => {
    const { bob } = fake.users;
    fake.setVoiceState({ userId: bob.id, channelId: fake.voiceChannel.id });
    const guild = bot.client.guilds.cache.get(fake.guild.id)!;
    await fake.waitFor(() => guild.voiceStates.cache.get(bob.id)?.channelId === fake.voiceChannel.id);
    await voice.waitForPackets(voice.received.length + 10, 5_000);

    const heard = transcriptions();
    const overAt = performance.now();
    await voice.speak(bob.id, talkFixture('time-in-tokyo-b'));
    const overEnd = performance.now();
    // Silent within 300 ms of Bob's voice, and as long as he speaks.
    expect(voice.received.filter((packet) => packet.arrivedAt > overAt + 300 && packet.arrivedAt < overEnd)).toEqual([]);
    // Two people are here and he did not say "Herald": once heard, the answer goes on.
    await voice.waitForPackets(voice.received.length + 10, 5_000);
    expect(transcriptions() - heard).toBe(1);
    expect(world.botTexts(fake.voiceChannel.id).some((text) => text.includes('Tokyo'))).toBe(false);
  });

  it('takes no turn from a cough, answers a turn that starts with its name in place of the answer going on, and ends when its starter leaves', async () => {
    const { bob } = fake.users;
    const heard = transcriptions();
    await voice.speak(bob.id, talkFixture('cough'));
    await voice.speak(bob.id, talkFixture('tell-me-a-joke-b'));
    await waitForText(fake.voiceChannel.id, '🗣️ **Bob:** Hey Herald, tell me a joke.');
    await waitForText(fake.voiceChannel.id, '🔊 **Herald:** Echo: [Bob]: Hey Herald, tell me a joke.');
    expect(transcriptions() - heard).toBe(1);

    fake.setVoiceState({ userId: fake.users.alice.id, channelId: null });
    await waitForText(fake.voiceChannel.id, '🔇 Stopped listening: Alice, who started it, left the channel.');
    await fake.waitFor(() => fake.voiceRequests.at(-1)?.selfDeaf === true, { description: 'the bot deafened again' });
  });
});
