import { ApplicationCommandType, REST, Routes, type APIApplication, type APIApplicationCommand } from 'discord.js';
import { ConfigError } from '../../src/config/config-error.ts';
import type { Config } from '../../src/config/config.ts';
import { messageActions } from '../../commands/index.ts';
import { commandData, messageCommandData } from './command-data.ts';
import { discordCommands } from './discord-commands.ts';
import { restOptions } from './rest-options.ts';

export interface RegisteredCommands {
  /** The server the commands were registered in; absent when registered globally. */
  guildId?: string;
  /** Slash commands. */
  names: string[];
  /** Message commands, as their menu entries read. */
  messageCommands: string[];
}

/**
 * `herald register [--guild ID]`: replaces the application's slash and message commands with Herald's, globally (every
 * server, propagates within minutes) or in one server (at once, handy while testing).
 */
export async function registerCommands(config: Config, options: { guildId?: string } = {}): Promise<RegisteredCommands> {
  if (!config.discord) throw new ConfigError('DISCORD_TOKEN', 'required to register the Discord commands');
  const rest = new REST(restOptions(config.discord)).setToken(config.discord.token);
  try {
    const application = (await rest.get(Routes.currentApplication())) as APIApplication;
    const route = options.guildId ? Routes.applicationGuildCommands(application.id, options.guildId) : Routes.applicationCommands(application.id);
    const body = [...discordCommands().map(commandData), ...messageActions.map(messageCommandData)];
    const registered = (await rest.put(route, { body })) as APIApplicationCommand[];
    const named = (type: ApplicationCommandType) => registered.filter((c) => c.type === type).map((c) => c.name);
    return {
      ...(options.guildId !== undefined && { guildId: options.guildId }),
      names: named(ApplicationCommandType.ChatInput),
      messageCommands: named(ApplicationCommandType.Message),
    };
  } finally {
    rest.clearHashSweeper();
    rest.clearHandlerSweeper();
  }
}
