import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryStore } from '../../src/store/memory-store.ts';
import { VoiceError } from '../../src/voice/voice-error.ts';
import { narrationBudget } from '../../src/voice/narration-budget.ts';
import { VoiceManager, type VoiceManagerOptions } from '../../src/voice/voice-manager.ts';
import { UsageLedger } from '../../src/conversation/usage-ledger.ts';
import { testConfig } from '../conversation/fake-adapter.ts';
import type { ChannelRef, VoicePlatform } from '../../src/voice/voice-platform.ts';
import { FakeLink, FakeSynth, tone } from './fakes.ts';
import { silentLogger } from '../helpers/logger.ts';

const CHANNELS: Record<string, string> = { 'voice-1': 'Lounge', 'voice-2': 'Gaming', 'text-1': 'general', 'text-2': 'memes' };

/** Users sit in voice channels; joins can be held back per guild. */
class FakePlatform implements VoicePlatform {
  readonly userChannels = new Map<string, string>();
  readonly links: { guildId: string; link: FakeLink }[] = [];
  readonly heldJoins = new Set<string>();
  /** Users with Move Members. */
  readonly movers = new Set<string>();

  async userVoiceChannel(_guildId: string, userId: string): Promise<ChannelRef> {
    const id = this.userChannels.get(userId);
    if (!id) throw new VoiceError('Join a voice channel first.', { code: 'not_in_voice' });
    return { id, name: CHANNELS[id]! };
  }

  async textChannel(_guildId: string, _userId: string, reference: string | undefined, fallbackId: string): Promise<ChannelRef> {
    const id = reference === undefined ? fallbackId : /^<#(\w+-\d)>$/.exec(reference)?.[1];
    if (!id || !CHANNELS[id]) throw new VoiceError(`No channel ${reference}.`, { code: 'unknown_channel' });
    return { id, name: CHANNELS[id] };
  }

  channelName(_guildId: string, channelId: string): string {
    return CHANNELS[channelId] ?? channelId;
  }

  async mayControl(_guildId: string, userId: string, voiceChannelId: string): Promise<boolean> {
    return this.userChannels.get(userId) === voiceChannelId || this.movers.has(userId);
  }

  async join(guildId: string, channelId: string): Promise<FakeLink> {
    if (this.heldJoins.has(guildId)) await new Promise(() => {});
    const link = new FakeLink(channelId);
    this.links.push({ guildId, link });
    return link;
  }

  peopleIn(_guildId: string, channelId: string): number {
    return [...this.userChannels.values()].filter((id) => id === channelId).length;
  }

  displayName(_guildId: string, userId: string): string {
    return userId;
  }

  async postInVoiceChat(): Promise<void> {}
}

let manager: VoiceManager | undefined;
afterEach(() => {
  manager?.close();
  manager = undefined;
});

function setup(admitNarration?: VoiceManagerOptions['admitNarration']) {
  const platform = new FakePlatform();
  const synth = new FakeSynth();
  const store = new MemoryStore();
  manager = new VoiceManager({ platform: 'test', voice: platform, synthesize: synth.synthesize, store, logger: silentLogger, admitNarration });
  const control = (userId = 'alice', guildId: string | null = 'guild-1', channelId = 'text-1') =>
    manager!.control({ guildId: guildId ?? undefined, channelId, userId });
  return { platform, synth, store, manager, control };
}

const message = (text: string, extra: Partial<Parameters<VoiceManager['narrate']>[0]> = {}) => ({
  guildId: 'guild-1',
  channelId: 'text-1',
  authorId: 'alice',
  authorName: 'Alice',
  text,
  attachments: [],
  fromBot: false,
  ...extra,
});

describe('VoiceManager', () => {
  it("speaks in the user's voice channel and tells where", async () => {
    const { platform, synth, control } = setup();
    platform.userChannels.set('alice', 'voice-1');
    const ticket = await control().say({ text: 'hello', voice: 'default_en', style: 'happy' });
    expect(ticket).toMatchObject({ channelName: 'Lounge', ahead: 0 });
    await synth.waitForRequests(1);
    expect(synth.requests[0]!.input).toMatchObject({ text: 'hello', voice: 'default_en', style: 'happy' });
    synth.requests[0]!.end();
    expect(await ticket.finished).toEqual({ status: 'played' });
  });

  it('refuses with a clear message outside a server or when the user is not in voice', async () => {
    const { control } = setup();
    await expect(control('alice', null).say({ text: 'hi' })).rejects.toThrow(/only in servers/);
    await expect(control().say({ text: 'hi' })).rejects.toMatchObject({ code: 'not_in_voice' });
  });

  it('will not jump to another channel while speaking in one', async () => {
    const { platform, synth, control } = setup();
    platform.userChannels.set('alice', 'voice-1');
    platform.userChannels.set('bob', 'voice-2');
    const ticket = await control('alice').say({ text: 'long speech' });
    await expect(control('bob').say({ text: 'me too' })).rejects.toThrow("I'm speaking in Lounge right now. Join that channel, or use /stop first.");
    await synth.waitForRequests(1);
    platform.movers.add('bob');
    expect(await control('bob').stop()).toBe(1);
    expect(await ticket.finished).toEqual({ status: 'stopped' });
    const moved = await control('bob').say({ text: 'my turn' });
    expect(moved.channelName).toBe('Gaming');
  });

  it("one server's stuck voice never delays another's", async () => {
    const { platform, synth, control } = setup();
    platform.userChannels.set('alice', 'voice-1');
    platform.heldJoins.add('guild-1'); // guild-1's join never completes
    await control('alice', 'guild-1').say({ text: 'stuck' });
    const other = await control('alice', 'guild-2').say({ text: 'free' });
    await synth.waitForRequests(1);
    expect(synth.requests[0]!.input.text).toBe('free');
    synth.requests[0]!.push(tone(0.1));
    synth.requests[0]!.end();
    expect(await other.finished).toEqual({ status: 'played' });
    expect(platform.links.map(({ guildId }) => guildId)).toEqual(['guild-2']);
  });

  it('narrates new messages of the channel with the server narration voice and style, skipping bots and commands', async () => {
    const { platform, synth, control, manager: voices } = setup();
    platform.userChannels.set('alice', 'voice-1');
    const started = await control().startNarration({ voice: 'default_zh', style: 'calm' });
    expect(started).toEqual({ textChannelName: 'general', voiceChannelName: 'Lounge', voice: 'default_zh', style: 'calm' });
    expect(platform.links).toHaveLength(1); // joined at once, before anything is said
    voices.narrate(message('from a bot', { fromBot: true }));
    voices.narrate(message('!skip'));
    voices.narrate(message('elsewhere', { channelId: 'text-2' }));
    voices.narrate(message('', { attachments: [{ name: 'a.png', contentType: 'image/png' }] }));
    await synth.waitForRequests(1);
    expect(synth.requests[0]!.input).toMatchObject({ text: 'Alice sent an image.', voice: 'default_zh', style: 'calm' });
    synth.requests[0]!.end();

    expect(await control().stopNarration()).toBe(true);
    voices.narrate(message('after the end'));
    expect(await control().stopNarration()).toBe(false);
    // The guild's voice and style are remembered for the next start; a new style replaces the old one.
    const again = await control().startNarration({ channel: '<#text-2>', style: 'fast' });
    expect(again).toMatchObject({ textChannelName: 'memes', voice: 'default_zh', style: 'fast' });
    voices.narrate(message('memes!', { channelId: 'text-2', authorName: 'Bob' }));
    await synth.waitForRequests(2);
    expect(synth.requests.map((request) => request.input.text)).toEqual(['Alice sent an image.', 'Bob says: memes!']);
    expect(synth.requests[1]!.input).toMatchObject({ voice: 'default_zh', style: 'fast' });
  });

  it("charges each narrated message to its author's budget: once it is spent, their messages are not read", async () => {
    const store = new MemoryStore();
    const config = testConfig({ QUOTA_USER_PER_MINUTE: '2' });
    const budget = narrationBudget('test', store, config, silentLogger);
    const admitted: boolean[] = [];
    const {
      platform,
      synth,
      control,
      manager: voices,
    } = setup(async (m) => {
      const ok = await budget(m);
      admitted.push(ok);
      return ok;
    });
    platform.userChannels.set('alice', 'voice-1');
    await control().startNarration({});
    for (const text of ['one', 'two', 'three']) voices.narrate(message(text));
    voices.narrate(message('hello', { authorId: 'bob', authorName: 'Bob' }));
    await vi.waitFor(() => expect(admitted).toHaveLength(4));
    expect(admitted).toEqual([true, true, false, true]);
    for (let n = 1; n <= 3; n++) {
      await synth.waitForRequests(n);
      synth.requests[n - 1]!.end();
    }
    expect(synth.requests.map((r) => r.input.text)).toEqual(['Alice says: one.', 'Alice says: two.', 'Bob says: hello.']);
    const usage = await new UsageLedger(store, config.timezone).report({ platform: 'test', userId: 'alice' }, new Date());
    expect(usage.today.replies).toBe(2);
  });

  it('keeps /say in the narrated voice channel while narration runs', async () => {
    const { platform, control } = setup();
    platform.userChannels.set('alice', 'voice-1');
    platform.userChannels.set('bob', 'voice-2');
    await control('alice').startNarration({});
    await expect(control('bob').say({ text: 'hi' })).rejects.toThrow(
      "I'm narrating #general in Lounge. Join that channel, or end narration with /narrate stop.",
    );
  });

  it('stays in voice while narrating and leaves after the idle timeout once narration stops', async () => {
    const { platform, control } = setup();
    platform.userChannels.set('alice', 'voice-1');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await control().startNarration({});
      vi.advanceTimersByTime(60 * 60_000);
      expect(platform.links[0]!.link.left).toBe(false);
      await control().stopNarration();
      vi.advanceTimersByTime(5 * 60_000);
      expect(platform.links[0]!.link.left).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('stops narrating and leaves when the last person leaves its channel', async () => {
    const { platform, synth, control, manager: voices } = setup();
    platform.userChannels.set('alice', 'voice-1');
    await control().startNarration({});
    voices.channelEmptied('guild-1', 'voice-2'); // another channel: nothing to do
    expect(platform.links[0]!.link.left).toBe(false);
    voices.channelEmptied('guild-1', 'voice-1');
    expect(platform.links[0]!.link.left).toBe(true);
    expect(voices.isNarrating('guild-1')).toBe(false);
    voices.narrate(message('anyone?'));
    expect(synth.requests).toHaveLength(0);
  });

  it('ends narration when the voice connection is lost for good, rather than rejoining for every message', async () => {
    const { platform, control, manager: voices } = setup();
    platform.userChannels.set('alice', 'voice-1');
    await control().startNarration({});
    platform.links[0]!.link.lose('I was disconnected from the voice channel.');
    expect(voices.isNarrating('guild-1')).toBe(false);
    voices.narrate(message('hello?'));
    expect(platform.links).toHaveLength(1);
  });

  it('follows the bot when someone moves it while narrating: narration, /say and leaving an emptied channel go by the new one', async () => {
    const { platform, synth, control, manager: voices } = setup();
    platform.userChannels.set('alice', 'voice-1');
    await control('alice').startNarration({});
    platform.links[0]!.link.move('voice-2');
    platform.userChannels.set('alice', 'voice-2'); // moved along with the bot
    platform.userChannels.set('bob', 'voice-1');
    voices.narrate(message('still listening?'));
    await synth.waitForRequests(1);
    synth.requests[0]!.end();
    const ticket = await control('alice').say({ text: 'hello from here' });
    expect(ticket.channelName).toBe('Gaming');
    await expect(control('bob').say({ text: 'come back' })).rejects.toThrow("I'm narrating #general in Gaming.");
    voices.channelEmptied('guild-1', 'voice-1');
    expect(platform.links[0]!.link.left).toBe(false);
    voices.channelEmptied('guild-1', 'voice-2');
    expect(platform.links[0]!.link.left).toBe(true);
    expect(await ticket.finished).toEqual({ status: 'stopped' });
    expect(platform.links).toHaveLength(1);
  });

  it('lets only people in its voice channel, or with Move Members, stop, skip or end narration there', async () => {
    const { platform, synth, control } = setup();
    platform.userChannels.set('alice', 'voice-1');
    platform.userChannels.set('bob', 'voice-2');
    const ticket = await control('alice').say({ text: 'long speech' });
    await synth.waitForRequests(1);
    const refusal = { code: 'not_permitted', message: 'Only people in Lounge (or with Move Members) can do that.' };
    await expect(control('bob').skip()).rejects.toMatchObject(refusal);
    await expect(control('carol').stop()).rejects.toMatchObject(refusal);
    await control('alice').startNarration({});
    await expect(control('bob').stopNarration()).rejects.toMatchObject(refusal);
    expect(manager!.isNarrating('guild-1')).toBe(true);
    platform.movers.add('carol');
    expect(await control('carol').stopNarration()).toBe(true);
    expect(await control('alice').stop()).toBe(1);
    expect(await ticket.finished).toEqual({ status: 'stopped' });
  });

  it("remembers a user's wish to hear /say in voice", async () => {
    const { control } = setup();
    expect(await control('alice').prefersVoice()).toBe(false);
    await control('alice').setPrefersVoice(true);
    expect(await control('alice', 'guild-2').prefersVoice()).toBe(true);
    expect(await control('bob').prefersVoice()).toBe(false);
    await control('alice').setPrefersVoice(false);
    expect(await control('alice').prefersVoice()).toBe(false);
  });
});
