import { describeError } from '../src/errors.ts';
import type { CommandServices } from './command.ts';
import type { MessageActionContext, MessageActionDefinition } from './message-action.ts';

/**
 * The one way adapters run a message action: acknowledges at once (every action may outlast the platform's
 * window), then turns a failure into a short reply the presser alone sees, the details going to the log.
 */
export async function runMessageAction(action: MessageActionDefinition, ctx: MessageActionContext, services: CommandServices): Promise<void> {
  await ctx.defer({ ephemeral: ctx.ephemeral });
  try {
    await action.run(ctx, services);
  } catch (error) {
    services.logger.error({ err: error, action: action.id, platform: ctx.platform }, 'message action failed');
    await ctx.reply(`⚠️ ${describeError(error).message}`, { ephemeral: true });
  }
}
