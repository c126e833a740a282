import { answerVoiceAction, type CommandDefinition } from './command.ts';

export const stop: CommandDefinition = {
  name: 'stop',
  description: 'Stop speaking in the voice channel and clear the queue',
  voiceChannels: true,
  options: [],
  async run(ctx) {
    const { voice } = ctx;
    if (!voice) return ctx.reply('I only speak in server voice channels, so there is nothing to stop here.', { ephemeral: true });
    return answerVoiceAction(
      ctx,
      () => voice.stop(),
      (stopped) => {
        if (stopped === 0) return ctx.reply('Nothing is playing.', { ephemeral: true });
        return ctx.reply(stopped === 1 ? '⏹️ Stopped.' : `⏹️ Stopped, and cleared ${stopped - 1} waiting.`);
      },
    );
  },
};
