import type { CommandDefinition } from './command.ts';
import { commandKey } from './incoming.ts';

export const reset: CommandDefinition = {
  name: 'reset',
  description: 'Forget this conversation',
  ephemeral: true,
  options: [],
  async run(ctx, { engine }) {
    const forgot = await engine.reset(commandKey(ctx));
    await ctx.reply(forgot ? 'Done — I have forgotten this conversation.' : 'There was nothing to forget here.', { ephemeral: true });
  },
};
