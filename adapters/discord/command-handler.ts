import { ApplicationCommandOptionType, ChannelType, type ChatInputCommandInteraction, type Interaction } from 'discord.js';
import type { CommandDefinition } from '../../commands/command.ts';
import { runCommand } from '../../commands/run-command.ts';
import type { Core } from '../../src/core.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { PlatformHooks } from '../../src/platform/platform-hooks.ts';
import type { QuestionFlow } from '../../src/platform/question-flow.ts';
import type { HistoryCache } from '../../src/workspace/history-cache.ts';
import { isAllowed } from './access-policy.ts';
import { commandContext, memberRoleIds } from './command-context.ts';
import { discordCommands } from './discord-commands.ts';
import { interactionRefusal, refuseInteraction, trackAnswer } from './interaction-gate.ts';
import { MessageActionHandler } from './message-action-handler.ts';
import type { RouteRateLimits } from './route-rate-limits.ts';
import type { VoiceNotePolicy } from './voice-note-policy.ts';
import type { DiscordVoice } from './voice/discord-voice.ts';

export interface CommandHandlerDeps {
  core: Core;
  logger: Logger;
  rateLimits: RouteRateLimits;
  flow: QuestionFlow;
  voiceNotes: VoiceNotePolicy;
  hooks: PlatformHooks;
  voice?: DiscordVoice;
  history: HistoryCache;
}

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

/**
 * Runs slash commands through the core's runCommand, with the context bound to the interaction; message commands
 * and their modals go to the MessageActionHandler.
 */
export class CommandHandler {
  readonly #deps: CommandHandlerDeps;
  readonly #commands: Map<string, CommandDefinition>;
  readonly #actions: MessageActionHandler;

  constructor(deps: CommandHandlerDeps) {
    this.#deps = deps;
    this.#commands = new Map(discordCommands(deps.voiceNotes).map((command) => [command.name, command]));
    this.#actions = new MessageActionHandler(deps);
  }

  async handle(interaction: Interaction): Promise<void> {
    if (interaction.isMessageContextMenuCommand() || interaction.isModalSubmit()) return this.#actions.handle(interaction);
    if (!interaction.isChatInputCommand()) return;
    const { core, logger, hooks } = this.#deps;
    const refuse = (content: string) => refuseInteraction(interaction, content, logger);
    const command = this.#commands.get(interaction.commandName);
    if (!command) return refuse(`I don't know /${interaction.commandName}; the commands may need registering again.`);
    const refusal = await interactionRefusal(interaction, this.#deps);
    if (refusal) return refuse(refusal);
    const subject = { guildId: interaction.guildId ?? undefined, roleIds: memberRoleIds(interaction) };
    const outside = namedChannels(interaction).find((channelIds) => !isAllowed(core.config.discord?.access, { ...subject, channelIds }));
    if (outside) return refuse(`Herald isn't available in <#${outside[0]}>.`);
    const ctx = commandContext(interaction, this.#deps);
    const work = runCommand(command, ctx, core).catch((error: unknown) =>
      logger.error({ err: error, command: command.name }, 'answering a command failed'),
    );
    await trackAnswer(work, `discord /${command.name}`, hooks);
  }
}
