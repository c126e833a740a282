import { stringOption, type CommandDefinition } from './command.ts';
import { VOICE_CHOICES, voiceId } from './say.ts';

const ACTIONS = [
  { name: 'Start reading new messages aloud', value: 'start' },
  { name: 'Stop', value: 'stop' },
] as const;

export const narrate: CommandDefinition = {
  name: 'narrate',
  description: "Read a text channel's new messages aloud in your voice channel",
  voiceChannels: true,
  slow: true,
  options: [
    { name: 'action', description: 'Start or stop', type: 'string', required: true, choices: ACTIONS },
    { name: 'channel', description: 'Text channel to read, e.g. #general (default: this one)', type: 'string', maxLength: 100 },
    { name: 'voice', description: "Narration voice (kept as the server's default)", type: 'string', choices: VOICE_CHOICES },
    { name: 'style', description: 'Delivery, e.g. "calm" or "speed up" (kept as the server\'s default)', type: 'string', maxLength: 100 },
  ],
  async run(ctx, services) {
    if (!ctx.voice) return ctx.reply('Narration works in server voice channels only.');
    if (stringOption(ctx, 'action') === 'stop') {
      return ctx.reply((await ctx.voice.stopNarration()) ? '🔇 Narration stopped.' : 'Narration is not running.');
    }
    const voice = stringOption(ctx, 'voice');
    const started = await ctx.voice.startNarration({
      channel: stringOption(ctx, 'channel'),
      voice: voice === undefined ? undefined : voiceId(voice, services),
      style: stringOption(ctx, 'style'),
    });
    await ctx.reply(
      `🎙️ Reading new messages of #${started.textChannelName} aloud in 🔊 ${started.voiceChannelName}` +
        (started.style ? ` (style: ${started.style})` : '') +
        '. Bots and commands are skipped; `/narrate action:stop` ends it.',
    );
  },
};
