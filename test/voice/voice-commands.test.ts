import { describe, expect, it } from 'vitest';
import type { CommandContext, CommandServices, OptionValue, OutgoingFile } from '../../commands/command.ts';
import { narrate } from '../../commands/narrate.ts';
import { runCommand } from '../../commands/run-command.ts';
import { say } from '../../commands/say.ts';
import { skip } from '../../commands/skip.ts';
import { stop } from '../../commands/stop.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import type { SpeechOutcome, SpeechRequest, VoiceControl } from '../../src/voice/voice-control.ts';
import { VoiceError } from '../../src/voice/voice-error.ts';
import { testConfig } from '../conversation/fake-adapter.ts';
import { silentLogger } from '../helpers/logger.ts';

class FakeVoice implements VoiceControl {
  said: SpeechRequest[] = [];
  prefers = false;
  inVoice = true;
  outcome: SpeechOutcome = { status: 'played' };
  ahead = 0;
  narration: { channel?: string; voice?: string; style?: string } | undefined;

  async say(request: SpeechRequest) {
    if (!this.inVoice) throw new VoiceError('Join a voice channel first, then ask again.', { code: 'not_in_voice' });
    this.said.push(request);
    return { channelName: 'Lounge', ahead: this.ahead, finished: Promise.resolve(this.outcome) };
  }
  async stop() {
    return 3;
  }
  async skip() {
    return false;
  }
  async startNarration(options: { channel?: string; voice?: string; style?: string }) {
    this.narration = options;
    return { textChannelName: 'general', voiceChannelName: 'Lounge', voice: options.voice, style: options.style };
  }
  async stopNarration() {
    return this.narration !== undefined;
  }
  async startTalk() {
    return { voiceChannelName: 'Lounge', name: 'Herald' };
  }
  async stopTalk() {
    return false;
  }
  async prefersVoice() {
    return this.prefers;
  }
  async setPrefersVoice(prefers: boolean) {
    this.prefers = prefers;
  }
}

function context(options: Record<string, OptionValue>, voice?: VoiceControl) {
  const replies: string[] = [];
  const ephemeral: boolean[] = [];
  const uploads: OutgoingFile[] = [];
  const ctx: CommandContext = {
    platform: 'discord',
    workspaceId: 'g',
    channelId: 'c',
    invocationId: 'i',
    isDirect: false,
    user: { id: 'u', displayName: 'Alice', isAdmin: false },
    options: new Map(Object.entries(options)),
    uploadLimitBytes: 10 * 2 ** 20,
    voiceMessages: true,
    ...(voice && { voice }),
    defer: async () => {},
    reply: async (text, o) => {
      replies.push(text);
      ephemeral.push(o?.ephemeral ?? false);
    },
    replyStream: async () => {},
    upload: async (file) => void uploads.push(file),
  };
  return { ctx, replies, ephemeral, uploads };
}

function services(): CommandServices {
  const config = testConfig();
  return {
    config,
    logger: silentLogger,
    engine: { settingsFor: async () => ({ voice: 'svc_default', quotas: config.quotas }) } as unknown as CommandServices['engine'],
    store: new MemoryStore(),
    speak: async () => ({ format: 'ogg' as const, mime: 'audio/ogg', data: Buffer.from('ogg'), durationSeconds: 1, waveform: 'AA==' }),
  };
}

describe('/say in a voice channel', () => {
  it('speaks live when asked, and says where', async () => {
    const voice = new FakeVoice();
    const { ctx, replies, uploads } = context({ text: 'hello', format: 'voice', voice: 'en', style: 'happy' }, voice);
    await runCommand(say, ctx, services());
    expect(voice.said).toEqual([{ text: 'hello', voice: 'default_en', style: 'happy', sing: false }]);
    expect(replies).toEqual(['🔊 Speaking in Lounge.']);
    expect(uploads).toEqual([]);
  });

  it('tells the user about a queue and about a failure partway', async () => {
    const voice = new FakeVoice();
    voice.ahead = 2;
    voice.outcome = { status: 'failed', message: 'Speech synthesis failed partway, so I stopped speaking.' };
    const { ctx, replies } = context({ text: 'hello', format: 'voice' }, voice);
    await runCommand(say, ctx, services());
    expect(replies).toEqual(['🔊 Queued in Lounge: 2 speeches before yours.', '⚠️ Speech synthesis failed partway, so I stopped speaking.']);
  });

  it('passes voice problems on to the user when voice was asked for', async () => {
    const voice = new FakeVoice();
    voice.inVoice = false;
    const { ctx, replies } = context({ text: 'hello', format: 'voice' }, voice);
    await runCommand(say, ctx, services());
    expect(replies).toEqual(['⚠️ Join a voice channel first, then ask again.']);
  });

  it('explains that live speech needs a server voice channel', async () => {
    const { ctx, replies } = context({ text: 'hello', format: 'voice' });
    await runCommand(say, ctx, services());
    expect(replies).toEqual(['I can speak live only in a Discord server with voice channels; leave out the format for a voice message.']);
  });

  it("follows the user's stored default, falling back to a voice message when they are not in voice", async () => {
    const voice = new FakeVoice();
    const first = context({ text: 'one', voice_default: true }, voice);
    await runCommand(say, first.ctx, services());
    expect(voice.prefers).toBe(true);
    expect(first.replies).toEqual(['🔊 Speaking in Lounge.']);

    const second = context({ text: 'two' }, voice);
    await runCommand(say, second.ctx, services());
    expect(voice.said.map((request) => request.text)).toEqual(['one', 'two']);

    voice.inVoice = false;
    const third = context({ text: 'three' }, voice);
    await runCommand(say, third.ctx, services());
    expect(third.uploads.map((file) => file.name)).toEqual(['voice-message.ogg']);

    const fourth = context({ text: 'four', format: 'wav' }, voice);
    await runCommand(say, fourth.ctx, services());
    expect(voice.said).toHaveLength(2); // an explicit file format wins over the default

    const off = context({ text: 'five', voice_default: false }, voice);
    voice.inVoice = true;
    await runCommand(say, off.ctx, services());
    expect(voice.prefers).toBe(false);
    expect(off.uploads).toHaveLength(1);
  });
});

describe('/stop, /skip and /narrate', () => {
  it('report what they did', async () => {
    const voice = new FakeVoice();
    const stopped = context({}, voice);
    await runCommand(stop, stopped.ctx, services());
    expect(stopped.replies).toEqual(['⏹️ Stopped, and cleared 2 waiting.']);
    const skipped = context({}, voice);
    await runCommand(skip, skipped.ctx, services());
    expect(skipped.replies).toEqual(['Nothing is playing.']);
    const elsewhere = context({});
    await runCommand(stop, elsewhere.ctx, services());
    expect(elsewhere.replies).toEqual(['I only speak in server voice channels, so there is nothing to stop here.']);
  });

  it('tell only the user when voice refuses them: not in its channel and without Move Members', async () => {
    const voice = new FakeVoice();
    const refusal = new VoiceError('Only people in Lounge (or with Move Members) can do that.', { code: 'not_permitted' });
    voice.stop =
      voice.skip =
      voice.stopNarration =
        async () => {
          throw refusal;
        };
    for (const [command, options] of [
      [stop, {}],
      [skip, {}],
      [narrate, {}],
    ] as const) {
      const { ctx, replies, ephemeral } = context(options, voice);
      await runCommand(command, command === narrate ? { ...ctx, subcommand: 'stop' } : ctx, services());
      expect([replies, ephemeral]).toEqual([[refusal.message], [true]]);
    }
  });

  it('narrate starts with the chosen channel, voice and style, and stops', async () => {
    const voice = new FakeVoice();
    const start = context({ channel: '123456789012345678', voice: 'zh', style: 'calm' }, voice);
    await runCommand(narrate, { ...start.ctx, subcommand: 'start' }, services());
    expect(voice.narration).toEqual({ channel: '123456789012345678', voice: 'default_zh', style: 'calm' });
    expect(start.replies).toEqual([
      '🎙️ Reading new messages of #general aloud in 🔊 Lounge (style: calm). Bots and commands are skipped; `/narrate stop` ends it.',
    ]);
    const end = context({}, voice);
    await runCommand(narrate, { ...end.ctx, subcommand: 'stop' }, services());
    expect(end.replies).toEqual(['🔇 Narration stopped.']);
  });
});
