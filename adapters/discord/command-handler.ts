import { MessageFlags, type Interaction } from 'discord.js';
import type { CommandDefinition } from '../../commands/command.ts';
import { runCommand } from '../../commands/run-command.ts';
import type { Core } from '../../src/core.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { PlatformHooks } from '../../src/platform/platform-hooks.ts';
import { isAllowed } from './access-policy.ts';
import { commandContext, memberRoleIds } from './command-context.ts';
import { discordCommands } from './discord-commands.ts';
import { NO_MENTIONS } from './mentions.ts';
import type { RouteRateLimits } from './route-rate-limits.ts';
import type { VoiceNotePolicy } from './voice-note-policy.ts';
import type { DiscordVoice } from './voice/discord-voice.ts';

export interface CommandHandlerDeps {
  core: Core;
  logger: Logger;
  rateLimits: RouteRateLimits;
  voiceNotes: VoiceNotePolicy;
  hooks: PlatformHooks;
  voice?: DiscordVoice;
}

/** Runs slash commands through the core's runCommand, with the context bound to the interaction. */
export class CommandHandler {
  readonly #deps: CommandHandlerDeps;
  readonly #commands: Map<string, CommandDefinition>;

  constructor(deps: CommandHandlerDeps) {
    this.#deps = deps;
    this.#commands = new Map(discordCommands(deps.voiceNotes).map((command) => [command.name, command]));
  }

  async handle(interaction: Interaction): Promise<void> {
    if (!interaction.isChatInputCommand()) return;
    const { core, logger, hooks } = this.#deps;
    const refuse = (content: string) =>
      interaction.reply({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS }).then(
        () => undefined,
        (error: unknown) => logger.warn({ err: error }, 'refusing a command failed'),
      );
    const command = this.#commands.get(interaction.commandName);
    if (!command) return refuse(`I don't know /${interaction.commandName}; the commands may need registering again.`);
    if (hooks.shutdown?.drainingSignal.aborted) return refuse('Herald is restarting; please try again in a minute.');
    const channel = interaction.channel;
    const channelIds = channel?.isThread() && channel.parentId ? [channel.id, channel.parentId] : [interaction.channelId];
    const subject = { guildId: interaction.guildId ?? undefined, channelIds, roleIds: memberRoleIds(interaction) };
    if (!isAllowed(core.config.discord?.access, subject)) return refuse("Herald isn't available here.");
    const ctx = commandContext(interaction, this.#deps);
    const work = runCommand(command, ctx, core).catch((error: unknown) =>
      logger.error({ err: error, command: command.name }, 'answering a command failed'),
    );
    hooks.metrics?.inflightReplies?.inc();
    try {
      await (hooks.shutdown ? hooks.shutdown.track(work, `discord /${command.name}`) : work);
    } finally {
      hooks.metrics?.inflightReplies?.dec();
    }
  }
}
