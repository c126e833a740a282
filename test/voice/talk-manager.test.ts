import { afterEach, describe, expect, it } from 'vitest';
import type { CommandContext, CommandServices, OptionValue } from '../../commands/command.ts';
import { runCommand } from '../../commands/run-command.ts';
import { talk } from '../../commands/talk.ts';
import { SettingsStore } from '../../src/conversation/settings.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import { loadVoiceActivity } from '../../src/voice/talk/voice-activity.ts';
import { VoiceManager } from '../../src/voice/voice-manager.ts';
import type { ChannelRef, VoicePlatform } from '../../src/voice/voice-platform.ts';
import { testConfig } from '../conversation/fake-adapter.ts';
import { silentLogger } from '../helpers/logger.ts';
import { talkFixture } from '../fakes/discord-voice/index.ts';
import { FakeSynth, tone } from './fakes.ts';
import { FakeAsr, FakeEngine, HearingLink, Signal } from './talk-fakes.ts';

const CHANNELS: Record<string, string> = { 'voice-1': 'Lounge', 'voice-2': 'Gaming' };
const NAMES: Record<string, string> = { alice: 'Alice', bob: 'Bob' };

/** People sit in voice channels; each voice channel's chat keeps what was posted in it. */
class TalkPlatform implements VoicePlatform {
  readonly userChannels = new Map<string, string>();
  readonly links: HearingLink[] = [];
  readonly chats = new Map<string, string[]>();
  /** Herald may not post in the voice channels' chat. */
  chatClosed = false;
  readonly #posted = new Signal();

  async userVoiceChannel(_guildId: string, userId: string): Promise<ChannelRef> {
    const id = this.userChannels.get(userId)!;
    return { id, name: CHANNELS[id]! };
  }
  async textChannel(): Promise<ChannelRef> {
    return { id: 'text-1', name: 'general' };
  }
  channelName(_guildId: string, channelId: string): string {
    return CHANNELS[channelId]!;
  }
  async mayControl(_guildId: string, userId: string, voiceChannelId: string): Promise<boolean> {
    return this.userChannels.get(userId) === voiceChannelId;
  }
  async join(_guildId: string, channelId: string): Promise<HearingLink> {
    const link = new HearingLink(channelId);
    this.links.push(link);
    return link;
  }
  peopleIn(_guildId: string, channelId: string): number {
    return [...this.userChannels.values()].filter((id) => id === channelId).length;
  }
  displayName(_guildId: string, userId: string): string {
    return NAMES[userId]!;
  }
  async postInVoiceChat(_guildId: string, channelId: string, text: string): Promise<void> {
    if (this.chatClosed) throw new Error('Missing Permissions');
    this.chats.set(channelId, [...(this.chats.get(channelId) ?? []), text]);
    this.#posted.wake();
  }
  async posted(channelId: string, count: number): Promise<string[]> {
    while ((this.chats.get(channelId)?.length ?? 0) < count) await this.#posted.wait();
    return this.chats.get(channelId)!;
  }
}

let manager: VoiceManager | undefined;
afterEach(() => manager?.close());

function setup(idleMs?: number) {
  const config = testConfig();
  const store = new MemoryStore();
  const settings = new SettingsStore(store);
  const platform = new TalkPlatform();
  const synth = new FakeSynth();
  const engine = new FakeEngine();
  const asr = new FakeAsr();
  manager = new VoiceManager({
    platform: 'test',
    voice: platform,
    synthesize: synth.synthesize,
    store,
    logger: silentLogger,
    talk: {
      settings: (key) => settings.resolve(key, config),
      answer: engine.answer,
      transcribe: asr.transcribe,
      spending: { admit: async () => null, withinBudget: async () => null, record: async () => {} },
      loadActivity: () => loadVoiceActivity(),
      ...(idleMs !== undefined && { idleMs }),
    },
  });
  const services = { config, logger: silentLogger, store } as unknown as CommandServices;
  const run = async (userId: string, subcommand: string, options: Record<string, OptionValue> = {}) => {
    const replies: string[] = [];
    const ctx = {
      platform: 'test',
      workspaceId: 'guild-1',
      channelId: 'text-1',
      invocationId: 'i',
      isDirect: false,
      user: { id: userId, displayName: NAMES[userId]!, isAdmin: false },
      subcommand,
      options: new Map(Object.entries(options)),
      uploadLimitBytes: 0,
      voiceMessages: false,
      voice: manager!.control({ guildId: 'guild-1', channelId: 'text-1', userId }),
      defer: async () => {},
      reply: async (text: string) => void replies.push(text),
      replyStream: async () => {},
      upload: async () => {},
    } satisfies CommandContext;
    await runCommand(talk, ctx, services);
    return replies;
  };
  const allowListening = () => settings.update({ platform: 'test', workspaceId: 'guild-1' }, { voiceListening: true, voiceName: 'Jarvis' });
  return { manager, platform, synth, engine, asr, run, allowListening };
}

describe('/talk', () => {
  it('is refused until a server admin allows listening, then joins, listens and says so in the channel', async () => {
    const { platform, run, allowListening } = setup();
    platform.userChannels.set('alice', 'voice-1');
    platform.userChannels.set('bob', 'voice-1');
    expect(await run('alice', 'start')).toEqual([
      '⚠️ Listening in voice channels is off in this server (it sends what people say to the AI service). A server admin can turn it on with `/settings voice_listening:on`.',
    ]);
    expect(platform.links).toEqual([]);

    await allowListening();
    expect(await run('alice', 'start', { transcript: true })).toEqual([
      '🎙️ Listening in 🔊 Lounge. Say “Jarvis, …” to ask me something; `/talk stop` ends it.',
    ]);
    expect(platform.links[0]!.listening).toBe(true);
    const [notice] = platform.chats.get('voice-1')!;
    expect(notice).toContain('Herald is listening and transcribing');
    expect(notice).toContain('started by Alice');
    expect(notice).toContain('audio is not stored');
    expect(notice).toContain('Start with “Jarvis”');
    expect(await run('bob', 'start')).toEqual(["⚠️ I'm already listening in Lounge; `/talk stop` ends it."]);

    expect(await run('bob', 'stop')).toEqual(['🔇 Stopped listening.']);
    expect(platform.links[0]!.listening).toBe(false);
    expect(await platform.posted('voice-1', 2)).toContain('🔇 Stopped listening: /talk stop by Bob.');
    expect(await run('bob', 'stop')).toEqual(["I'm not listening in a voice channel."]);
  });

  it('asks before leaving a channel where Herald speaks, and moves when told to', async () => {
    const { manager, platform, synth, run, allowListening } = setup();
    await allowListening();
    platform.userChannels.set('bob', 'voice-2');
    platform.userChannels.set('alice', 'voice-1');
    const speech = await manager.control({ guildId: 'guild-1', channelId: 'text-1', userId: 'bob' }).say({ text: 'A long story' });
    await synth.waitForRequests(1);
    expect(await run('alice', 'start')).toEqual(["⚠️ I'm speaking in Gaming right now. To bring me to Lounge instead, use `/talk start move:true`."]);
    expect(platform.links.map((link) => link.channelId)).toEqual(['voice-2']);

    expect(await run('alice', 'start', { move: true })).toEqual([
      '🎙️ Listening in 🔊 Lounge. Say “Jarvis, …” to ask me something; `/talk stop` ends it.',
    ]);
    expect(await speech.finished).toEqual({ status: 'stopped' });
    expect(platform.links.map((link) => [link.channelId, link.left, link.listening])).toEqual([
      ['voice-2', true, false],
      ['voice-1', false, true],
    ]);
  });

  it('holds /say until the conversation pauses, and ends when its starter leaves', async () => {
    const { manager, platform, synth, engine, asr, run, allowListening } = setup();
    await allowListening();
    platform.userChannels.set('alice', 'voice-1');
    await run('alice', 'start');
    const link = platform.links[0]!;
    // Stamped in the past, so the hangover after it has already gone by.
    link.speak('alice', talkFixture('capital-of-france-a'), performance.now() - 3000);
    (await asr.next(0)).reply('What is the capital of France?');
    const answer = await engine.next(0);
    answer.emit({ type: 'text', delta: 'Paris. ' });
    await synth.waitForRequests(1);

    const said = await manager.control({ guildId: 'guild-1', channelId: 'text-1', userId: 'alice' }).say({ text: 'Hello' });
    expect(said.ahead).toBe(0);
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(synth.requests).toHaveLength(1);
    synth.requests[0]!.push(tone(0.1));
    answer.done();
    synth.requests[0]!.end();
    await synth.waitForRequests(2);
    // The answer was fully spoken before /say's speech was asked for.
    expect(link.packets.length).toBeGreaterThanOrEqual(5);
    expect(synth.requests[1]!.input.text).toBe('Hello');
    synth.requests[1]!.end();
    await said.finished;

    manager.voiceChannelChanged('guild-1', 'alice', null);
    expect(link.listening).toBe(false);
    expect(manager.isTalking('guild-1')).toBe(false);
    expect(await platform.posted('voice-1', 2)).toContain('🔇 Stopped listening: Alice, who started it, left the channel.');
  });

  it('lets a /say playing end before it answers', async () => {
    const { manager, platform, synth, engine, asr, run, allowListening } = setup();
    await allowListening();
    platform.userChannels.set('alice', 'voice-1');
    await run('alice', 'start');
    const link = platform.links[0]!;
    const said = await manager.control({ guildId: 'guild-1', channelId: 'text-1', userId: 'alice' }).say({ text: 'Hello' });
    await synth.waitForRequests(1);
    synth.requests[0]!.push(tone(0.2));

    link.speak('alice', talkFixture('capital-of-france-a'), performance.now() - 3000);
    (await asr.next(0)).reply('What is the capital of France?');
    const answer = await engine.next(0);
    answer.emit({ type: 'text', delta: 'Paris. ' });
    answer.done();
    await synth.waitForRequests(2);
    synth.requests[1]!.push(tone(0.1));
    synth.requests[1]!.end();
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(link.plays).toBe(1);

    synth.requests[0]!.end();
    expect(await said.finished).toEqual({ status: 'played' });
    await link.played(15);
    expect(link.plays).toBe(2);
  });

  it('holds a /say while someone speaks over it, goes on when that was no turn for Herald, and stops even when held', async () => {
    const { manager, platform, synth, engine, asr, run, allowListening } = setup();
    await allowListening();
    platform.userChannels.set('alice', 'voice-1');
    platform.userChannels.set('bob', 'voice-1');
    await run('alice', 'start');
    const link = platform.links[0]!;
    const voice = manager.control({ guildId: 'guild-1', channelId: 'text-1', userId: 'alice' });
    const said = await voice.say({ text: 'A long story' });
    await synth.waitForRequests(1);
    synth.requests[0]!.push(tone(0.2));
    await link.played(5);

    // Stamped in the past: Bob's turn has ended by the next silence check, and waits to be transcribed.
    link.speak('bob', talkFixture('time-in-tokyo-b'), performance.now() - 5000);
    const atHold = link.packets.length;
    synth.requests[0]!.push(tone(1));
    const turn = await asr.next(0);
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(link.packets.length).toBeLessThanOrEqual(atHold + 2);

    turn.reply('What time is it in Tokyo?');
    await link.played(atHold + 40);
    synth.requests[0]!.end();
    expect(await said.finished).toEqual({ status: 'played' });
    expect(engine.calls).toEqual([]);

    const second = await voice.say({ text: 'Another story' });
    await synth.waitForRequests(2);
    synth.requests[1]!.push(tone(1));
    await link.played(link.packets.length + 5);
    link.speak('bob', talkFixture('time-in-tokyo-b'), performance.now() - 5000);
    await asr.next(1);
    expect(await voice.stop()).toBe(1);
    expect(await second.finished).toEqual({ status: 'stopped' });
    expect(link.plays).toBe(2);
  });

  it("does not listen where it cannot say so in the channel's chat", async () => {
    const { manager, platform, run, allowListening } = setup();
    await allowListening();
    platform.userChannels.set('alice', 'voice-1');
    platform.chatClosed = true;
    expect(await run('alice', 'start')).toEqual([
      "⚠️ I can't post in Lounge's chat, so I won't listen there unannounced. Give me **Send Messages** in it.",
    ]);
    expect(platform.links[0]!.listening).toBe(false);
    expect(manager.isTalking('guild-1')).toBe(false);
  });

  it('ends when the channel empties, and after idle minutes without a turn', async () => {
    const first = setup();
    await first.allowListening();
    first.platform.userChannels.set('alice', 'voice-1');
    await first.run('alice', 'start');
    first.manager.channelEmptied('guild-1', 'voice-1');
    expect(first.platform.links[0]!.left).toBe(true);
    expect(await first.platform.posted('voice-1', 2)).toContain('🔇 Stopped listening: everyone left the channel.');
    manager!.close();

    const second = setup(50);
    await second.allowListening();
    second.platform.userChannels.set('alice', 'voice-1');
    await second.run('alice', 'start');
    expect(await second.platform.posted('voice-1', 2)).toContain('🔇 Stopped listening: nobody talked to me for 1 s.');
    expect(second.platform.links[0]!.listening).toBe(false);
  });
});
