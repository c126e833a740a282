import { refusedHere, type CommandDefinition } from './command.ts';

export const skip: CommandDefinition = {
  name: 'skip',
  description: 'Skip what I am saying in the voice channel and go on with the next',
  voiceChannels: true,
  options: [],
  async run(ctx) {
    if (!ctx.voice) return ctx.reply('I only speak in server voice channels, so there is nothing to skip here.', { ephemeral: true });
    let skipped;
    try {
      skipped = await ctx.voice.skip();
    } catch (error) {
      return refusedHere(ctx, error);
    }
    if (!skipped) return ctx.reply('Nothing is playing.', { ephemeral: true });
    await ctx.reply('⏭️ Skipped.');
  },
};
