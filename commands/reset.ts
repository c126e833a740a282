import type { CommandDefinition } from './command.ts';

export const reset: CommandDefinition = {
  name: 'reset',
  description: 'Forget this conversation',
  ephemeral: true,
  options: [],
  async run(ctx, { engine }) {
    const forgot = await engine.reset({
      platform: ctx.platform,
      workspaceId: ctx.workspaceId,
      channelId: ctx.channelId,
      threadId: ctx.threadId,
    });
    await ctx.reply(forgot ? 'Done — I have forgotten this conversation.' : 'There was nothing to forget here.', { ephemeral: true });
  },
};
