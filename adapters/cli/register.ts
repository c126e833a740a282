import { parseArgs } from 'node:util';
import type { Config } from '../../src/config/config.ts';
import { loadPackage } from '../../src/load-package.ts';
import { UsageError } from './cli-error.ts';
import type { TerminalOutput } from './terminal-reply.ts';

/** `herald register [--guild ID]`: puts Herald's slash commands on Discord. */
export async function registerCommand(args: string[], config: Config, io: TerminalOutput): Promise<void> {
  let guild: string | undefined;
  try {
    const { values, positionals } = parseArgs({ args, options: { guild: { type: 'string' } }, allowPositionals: true, strict: true });
    if (positionals.length > 0) throw new Error(`unexpected "${positionals[0]}"`);
    guild = values.guild;
  } catch (error) {
    throw new UsageError(`register: ${(error as Error).message}`);
  }
  if (guild !== undefined && !/^\d{17,20}$/.test(guild)) throw new UsageError(`register: --guild takes a server id, not "${guild}"`);
  const { registerCommands } = await loadPackage('discord.js', () => import('../discord/index.ts'));
  const registered = await registerCommands(config, { guildId: guild });
  const where = registered.guildId ? `in server ${registered.guildId}` : 'globally (may take a few minutes to appear)';
  io.out.write(`Registered ${registered.names.length} commands ${where}: ${registered.names.map((n) => `/${n}`).join(' ')}\n`);
  io.out.write(`and ${registered.messageCommands.length} message commands (Apps menu): ${registered.messageCommands.join(', ')}\n`);
}
