import { MediaError } from '../src/errors.ts';
import type { SpeechFormat } from '../src/speech/speak.ts';
import { booleanOption, stringOption, type CommandContext, type CommandDefinition, type CommandServices } from './command.ts';

const VOICE_CHOICES = [
  { name: 'Default voice', value: 'default' },
  { name: 'Chinese (female)', value: 'zh' },
  { name: 'English (female)', value: 'en' },
] as const;

const FORMAT_CHOICES = [
  { name: 'Voice message', value: 'voice-message' },
  { name: 'WAV file', value: 'wav' },
] as const;

function voiceId(choice: string | undefined, services: CommandServices): string {
  if (choice === 'zh') return 'default_zh';
  if (choice === 'en') return 'default_en';
  return services.config.tts.voice;
}

function formatFor(ctx: CommandContext): SpeechFormat {
  const asked = stringOption(ctx, 'format');
  if (asked === 'wav') return 'wav';
  if (asked === 'voice-message') return ctx.voiceMessages ? 'ogg' : 'wav';
  return ctx.voiceMessages ? 'ogg' : 'wav';
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export const say: CommandDefinition = {
  name: 'say',
  description: 'Say something out loud (synthesized speech)',
  slow: true,
  options: [
    { name: 'text', description: 'What to say', type: 'string', required: true, maxLength: 2000 },
    { name: 'voice', description: 'Which voice', type: 'string', choices: VOICE_CHOICES },
    { name: 'style', description: 'Delivery, e.g. "happy", "whisper", "slow down", "Cantonese"', type: 'string', maxLength: 100 },
    { name: 'sing', description: 'Sing it', type: 'boolean' },
    { name: 'format', description: 'Voice message (default) or a WAV file', type: 'string', choices: FORMAT_CHOICES },
  ],
  async run(ctx, services) {
    const text = stringOption(ctx, 'text') ?? '';
    const format = formatFor(ctx);
    const input = {
      text,
      voice: voiceId(stringOption(ctx, 'voice'), services),
      style: stringOption(ctx, 'style'),
      sing: booleanOption(ctx, 'sing') ?? false,
    };
    let audio;
    try {
      audio = await services.speak(input, format);
    } catch (error) {
      if (error instanceof MediaError) return ctx.reply(error.message);
      throw error;
    }
    if (audio.data.length > ctx.uploadLimitBytes) {
      return ctx.reply(
        `The speech came out at ${megabytes(audio.data.length)}, over this channel's upload limit of ${megabytes(ctx.uploadLimitBytes)}. ` +
          'Try a shorter text' + (format === 'wav' ? ' or the voice-message format (much smaller).' : '.'),
      );
    }
    const name = format === 'ogg' ? 'voice-message.ogg' : 'speech.wav';
    await ctx.upload({
      name,
      mime: audio.mime,
      data: audio.data,
      ...(format === 'ogg' && audio.waveform !== undefined && {
        voiceMessage: { durationSeconds: audio.durationSeconds, waveform: audio.waveform },
      }),
    });
  },
};
