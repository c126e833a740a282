import { ApplicationCommandOptionType, ChannelType, MessageFlags, type ChatInputCommandInteraction, type Interaction } from 'discord.js';
import type { CommandDefinition } from '../../commands/command.ts';
import { runCommand } from '../../commands/run-command.ts';
import type { Core } from '../../src/core.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { PlatformHooks } from '../../src/platform/platform-hooks.ts';
import { directMessageAccess, isAllowed } from './access-policy.ts';
import type { HistoryCache } from '../../src/workspace/history-cache.ts';
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
  history: HistoryCache;
}

const DM_REFUSAL = "Herald answers direct messages only from members of the servers it's set up for.";

const THREADS = new Set([ChannelType.PublicThread, ChannelType.PrivateThread, ChannelType.AnnouncementThread]);

/** The channels a command's channel options name (`/narrate start channel:`), each with its parent for a thread. */
function namedChannels(interaction: ChatInputCommandInteraction): string[][] {
  const [first] = interaction.options.data;
  const given = first?.type === ApplicationCommandOptionType.Subcommand ? (first.options ?? []) : interaction.options.data;
  return given.flatMap((option) => {
    const channel = option.type === ApplicationCommandOptionType.Channel ? option.channel : null;
    if (!channel) return [];
    const parentId = !THREADS.has(channel.type) ? null : 'parentId' in channel ? channel.parentId : 'parent_id' in channel ? channel.parent_id : null;
    return [parentId ? [channel.id, parentId] : [channel.id]];
  });
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
    const access = core.config.discord?.access;
    if (!isAllowed(access, subject)) return refuse("Herald isn't available here.");
    const outside = namedChannels(interaction).find((channelIds) => !isAllowed(access, { ...subject, channelIds }));
    if (outside) return refuse(`Herald isn't available in <#${outside[0]}>.`);
    if (interaction.guildId === null && !(await directMessageAccess(interaction.client, access).allows(interaction.user.id))) {
      return refuse(DM_REFUSAL);
    }
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
