import { describeError } from '../src/errors.ts';
import type { CommandContext, CommandDefinition, CommandServices } from './command.ts';

/**
 * The one way adapters run a command: refuses non-admins for admin commands, defers slow ones before
 * any work, and turns a failure into a short reply (the details go to the log, never to the user).
 */
export async function runCommand(command: CommandDefinition, ctx: CommandContext, services: CommandServices): Promise<void> {
  const ephemeral = command.ephemeral ?? false;
  if (command.adminOnly && !ctx.user.isAdmin) {
    await ctx.reply(`Only administrators can use /${command.name}.`, { ephemeral: true });
    return;
  }
  if (command.slow) await ctx.defer({ ephemeral });
  try {
    await command.run(ctx, services);
  } catch (error) {
    services.logger.error({ err: error, command: command.name, platform: ctx.platform }, 'command failed');
    await ctx.reply(`⚠️ ${describeError(error).message}`, { ephemeral });
  }
}
