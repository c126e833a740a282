import { answerVoiceAction, stringOption, type CommandDefinition } from './command.ts';
import { VOICE_CHOICES, voiceId } from './say.ts';

export const narrate: CommandDefinition = {
  name: 'narrate',
  description: "Read a text channel's new messages aloud in your voice channel",
  voiceChannels: true,
  options: [],
  subcommands: [
    {
      name: 'start',
      description: 'Start reading new messages aloud in your voice channel',
      options: [
        // A voice channel's own chat is where people without a microphone usually type.
        {
          name: 'channel',
          description: "Channel to read, a thread or a voice channel's chat (default: this one)",
          type: 'channel',
          channelKinds: ['text', 'thread', 'voice'],
        },
        { name: 'voice', description: "Narration voice (kept as the server's default)", type: 'string', choices: VOICE_CHOICES },
        { name: 'style', description: 'Delivery, e.g. "calm" or "speed up" (kept as the server\'s default)', type: 'string', maxLength: 100 },
      ],
    },
    { name: 'stop', description: 'Stop reading aloud', options: [] },
  ],
  async run(ctx, services) {
    const { voice } = ctx;
    if (!voice) return ctx.reply('Narration works in server voice channels only.');
    if (ctx.subcommand === 'stop') {
      return answerVoiceAction(
        ctx,
        () => voice.stopNarration(),
        (stopped) => ctx.reply(stopped ? '🔇 Narration stopped.' : 'Narration is not running.'),
      );
    }
    // Joining the voice channel can outlast the platform's acknowledgement window.
    await ctx.defer();
    const voiceName = stringOption(ctx, 'voice');
    const started = await voice.startNarration({
      channel: stringOption(ctx, 'channel'),
      voice: voiceName === undefined ? undefined : voiceId(voiceName, services),
      style: stringOption(ctx, 'style'),
    });
    await ctx.reply(
      `🎙️ Reading new messages of #${started.textChannelName} aloud in 🔊 ${started.voiceChannelName}` +
        (started.style ? ` (style: ${started.style})` : '') +
        '. Bots and commands are skipped; `/narrate stop` ends it.',
    );
  },
};
