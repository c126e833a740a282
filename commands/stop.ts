import { refusedHere, type CommandDefinition } from './command.ts';

export const stop: CommandDefinition = {
  name: 'stop',
  description: 'Stop speaking in the voice channel and clear the queue',
  voiceChannels: true,
  options: [],
  async run(ctx) {
    if (!ctx.voice) return ctx.reply('I only speak in server voice channels, so there is nothing to stop here.', { ephemeral: true });
    let stopped;
    try {
      stopped = await ctx.voice.stop();
    } catch (error) {
      return refusedHere(ctx, error);
    }
    if (stopped === 0) return ctx.reply('Nothing is playing.', { ephemeral: true });
    await ctx.reply(stopped === 1 ? '⏹️ Stopped.' : `⏹️ Stopped, and cleared ${stopped - 1} waiting.`);
  },
};
