import { SpendingGuard } from '../src/conversation/quotas.ts';
import { addUsage, emptyUsage } from '../src/conversation/usage-meter.ts';
import { MediaError } from '../src/errors.ts';
import type { ResolvedSettings } from '../src/conversation/settings.ts';
import type { SpeechFormat } from '../src/speech/speak.ts';
import type { SpeechRequest } from '../src/voice/voice-control.ts';
import type { ReplyUsage } from '../src/conversation/types.ts';
import { VoiceError } from '../src/voice/voice-error.ts';
import { booleanOption, stringOption, type CommandDefinition, type CommandServices, type InvocationContext } from './command.ts';
import { commandKey } from './incoming.ts';

export const VOICE_CHOICES = [
  { name: 'Default voice', value: 'default' },
  { name: 'Chinese (female)', value: 'zh' },
  { name: 'English (female)', value: 'en' },
] as const;

const FORMAT_CHOICES = [
  { name: 'Voice message', value: 'voice-message' },
  { name: 'WAV file', value: 'wav' },
  { name: 'Voice channel (speak live)', value: 'voice' },
] as const;

export function voiceId(choice: string | undefined, services: CommandServices): string {
  if (choice === 'zh') return 'default_zh';
  if (choice === 'en') return 'default_en';
  return services.config.tts.voice;
}

function formatFor(ctx: InvocationContext, asked?: string): SpeechFormat {
  if (asked === 'wav') return 'wav';
  return ctx.voiceMessages ? 'ogg' : 'wav';
}

/**
 * Speaks live in the user's voice channel. Returns false to fall back to a file when voice was only the
 * user's default and cannot be used right now; asked for explicitly, a VoiceError goes to the user.
 */
async function speakLive(ctx: InvocationContext, input: SpeechRequest, explicit: boolean, usage: ReplyUsage): Promise<boolean> {
  if (!ctx.voice) {
    if (!explicit) return false;
    await ctx.reply('I can speak live only in a Discord server with voice channels; leave out the format for a voice message.');
    return true;
  }
  let ticket;
  try {
    ticket = await ctx.voice.say(input);
  } catch (error) {
    if (error instanceof VoiceError && !explicit) return false;
    throw error;
  }
  usage.serviceCalls += 1;
  await ctx.reply(
    ticket.ahead === 0
      ? `🔊 Speaking in ${ticket.channelName}.`
      : `🔊 Queued in ${ticket.channelName}: ${ticket.ahead} ${ticket.ahead === 1 ? 'speech' : 'speeches'} before yours.`,
  );
  const outcome = await ticket.finished;
  if (outcome.status === 'failed') await ctx.reply(`⚠️ ${outcome.message}`);
  return true;
}

/** Longest text Herald speaks at once. */
export const MAX_TEXT_CHARS = 2000;
const MAX_STYLE_CHARS = 100;

/** Why the text or style cannot be spoken, checked here as well as by the platform (Slack has no max length). */
function badInput(text: string, style: string | undefined): string | undefined {
  if (text.trim() === '') return 'There is nothing to say: give /say some text.';
  if (text.length > MAX_TEXT_CHARS) return `That text is ${text.length} characters long; /say speaks at most ${MAX_TEXT_CHARS}.`;
  if (style !== undefined && style.length > MAX_STYLE_CHARS) return `That style is ${style.length} characters long; at most ${MAX_STYLE_CHARS}.`;
  return undefined;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export const say: CommandDefinition = {
  name: 'say',
  description: 'Say something out loud (synthesized speech)',
  options: [
    { name: 'text', description: 'What to say', type: 'string', required: true, maxLength: 2000 },
    { name: 'voice', description: 'Which voice', type: 'string', choices: VOICE_CHOICES },
    { name: 'style', description: 'Delivery, e.g. "happy", "whisper", "slow down", "Cantonese"', type: 'string', maxLength: 100 },
    { name: 'sing', description: 'Sing it', type: 'boolean' },
    { name: 'format', description: 'Voice message (default), a WAV file, or live in your voice channel', type: 'string', choices: FORMAT_CHOICES },
    { name: 'voice_default', description: 'From now on speak in your voice channel by default (False: voice messages again)', type: 'boolean' },
  ],
  async run(ctx, services) {
    const text = stringOption(ctx, 'text') ?? '';
    const style = stringOption(ctx, 'style');
    const refusal = badInput(text, style);
    if (refusal) return ctx.reply(refusal, { ephemeral: true });
    const chosen = stringOption(ctx, 'voice');
    await withSpeechQuota(ctx, services, async (settings, usage) => {
      // Refusals before this go to the user alone; synthesis can outlast the platform's acknowledgement window.
      await ctx.defer();
      const input = {
        text,
        voice: chosen ? voiceId(chosen, services) : settings.voice,
        style,
        sing: booleanOption(ctx, 'sing') ?? false,
      };
      const asked = stringOption(ctx, 'format');
      const voiceDefault = booleanOption(ctx, 'voice_default');
      if (voiceDefault !== undefined && ctx.voice) await ctx.voice.setPrefersVoice(voiceDefault);
      const live = asked === 'voice' || (asked === undefined && (voiceDefault ?? (await ctx.voice?.prefersVoice())) === true);
      if (live && (await speakLive(ctx, input, asked === 'voice', usage))) return;
      await speakToFile(ctx, services, input, usage, asked);
    });
  },
};

/**
 * Runs speech work within the user's quotas: refuses (to the user alone) when they are spent, otherwise records
 * what `work` counted into `usage`, even when it fails.
 */
export async function withSpeechQuota(
  ctx: InvocationContext,
  services: CommandServices,
  work: (settings: ResolvedSettings, usage: ReplyUsage) => Promise<void>,
): Promise<void> {
  const settings = await services.engine.settingsFor(commandKey(ctx));
  const subject = { platform: ctx.platform, userId: ctx.user.id, workspaceId: ctx.workspaceId };
  const spending = new SpendingGuard(services.store, services.config);
  const denial = await spending.admit(subject, settings.quotas);
  if (denial) return ctx.reply(denial.message, { ephemeral: true });
  const usage = emptyUsage();
  try {
    await work(settings, usage);
  } finally {
    if (usage.serviceCalls > 0) {
      await spending.record(subject, usage).catch((error: unknown) => services.logger.error({ err: error }, 'recording usage failed'));
    }
  }
}

/**
 * Speaks into a file (a voice message where the platform has them, or WAV when `asked`) and uploads it; `usage`
 * gets the service's count.
 */
export async function speakToFile(
  ctx: InvocationContext,
  services: CommandServices,
  input: SpeechRequest,
  usage: ReplyUsage,
  asked?: string,
): Promise<void> {
  const format = formatFor(ctx, asked);
  let audio;
  try {
    audio = await services.speak(input, format);
  } catch (error) {
    if (error instanceof MediaError) return ctx.reply(error.message);
    throw error;
  }
  if (audio.usage) addUsage(usage, audio.usage);
  else usage.serviceCalls += 1;
  if (audio.data.length > ctx.uploadLimitBytes) {
    return ctx.reply(
      `The speech came out at ${megabytes(audio.data.length)}, over this channel's upload limit of ${megabytes(ctx.uploadLimitBytes)}. ` +
        'Try a shorter text' +
        (format === 'wav' ? ' or the voice-message format (much smaller).' : '.'),
    );
  }
  const name = format === 'ogg' ? 'voice-message.ogg' : 'speech.wav';
  await ctx.upload({
    name,
    mime: audio.mime,
    data: audio.data,
    ...(format === 'ogg' &&
      audio.waveform !== undefined && {
        voiceMessage: { durationSeconds: audio.durationSeconds, waveform: audio.waveform },
      }),
  });
}
