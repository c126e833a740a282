import { answerVoiceAction, type CommandDefinition } from './command.ts';

export const skip: CommandDefinition = {
  name: 'skip',
  description: 'Skip what I am saying in the voice channel and go on with the next',
  voiceChannels: true,
  options: [],
  async run(ctx) {
    const { voice } = ctx;
    if (!voice) return ctx.reply('I only speak in server voice channels, so there is nothing to skip here.', { ephemeral: true });
    return answerVoiceAction(
      ctx,
      () => voice.skip(),
      (skipped) => (skipped ? ctx.reply('⏭️ Skipped.') : ctx.reply('Nothing is playing.', { ephemeral: true })),
    );
  },
};
