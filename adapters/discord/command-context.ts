import { ApplicationCommandOptionType, PermissionFlagsBits, type ChatInputCommandInteraction, type RepliableInteraction } from 'discord.js';
import type { CommandContext, InvocationContext, OptionValue } from '../../commands/command.ts';
import type { Core } from '../../src/core.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { QuestionFlow } from '../../src/platform/question-flow.ts';
import { renderReply } from '../../src/streaming/render-reply.ts';
import { splitMarkdown } from '../../src/streaming/markdown-split.ts';
import { replyApproval } from './approval-message.ts';
import { downloadAttachment } from './attachments.ts';
import { MESSAGE_LIMIT } from './discord-surface.ts';
import type { HistoryCache } from '../../src/workspace/history-cache.ts';
import { InteractionReplies } from './interaction-replies.ts';
import { askerWorkspace } from './asker-workspace.ts';
import { InteractionSurface } from './interaction-surface.ts';
import type { RouteRateLimits } from './route-rate-limits.ts';
import { finishReply, postFile, reportFailure } from './finish-reply.ts';
import type { DiscordVoice } from './voice/discord-voice.ts';

const EMPTY_ANSWER = '_(The model returned an empty answer.)_';

export interface CommandContextDeps {
  core: Core;
  logger: Logger;
  rateLimits: RouteRateLimits;
  /** Where approvals of tool calls wait for their press. */
  flow: QuestionFlow;
  voice?: DiscordVoice;
  /** The history cache the workspace reads share. */
  history?: HistoryCache;
}

/** The options given, those of the subcommand when one was picked (Herald has no subcommand groups). */
function optionValues(interaction: ChatInputCommandInteraction): Map<string, OptionValue> {
  const values = new Map<string, OptionValue>();
  const [first] = interaction.options.data;
  const given = first?.type === ApplicationCommandOptionType.Subcommand ? (first.options ?? []) : interaction.options.data;
  for (const option of given) {
    const attachment = option.attachment;
    if (attachment) {
      values.set(option.name, {
        name: attachment.name,
        ...(attachment.contentType && { contentType: attachment.contentType }),
        size: attachment.size,
        fetch: () => downloadAttachment(attachment),
      });
    } else if (option.value !== undefined && option.value !== null) {
      values.set(option.name, option.value);
    }
  }
  return values;
}

function memberName(interaction: RepliableInteraction): string {
  const member = interaction.member;
  if (member && 'displayName' in member) return member.displayName;
  return member?.nick ?? interaction.user.displayName;
}

/** Roles of the member who ran the command (none in direct messages). */
export function memberRoleIds(interaction: RepliableInteraction): string[] {
  const member = interaction.member;
  if (!member) return [];
  return Array.isArray(member.roles) ? member.roles : [...member.roles.cache.keys()];
}

/**
 * Who pressed or ran what where, with replies bound to the interaction (deferral, response, followups; streamed
 * answers edited through the interaction webhook). `showReasoning` when the user asked for the model's reasoning.
 */
export function invocationContext(
  interaction: RepliableInteraction,
  deps: CommandContextDeps,
  options: { showReasoning?: boolean } = {},
): InvocationContext {
  const { core, logger, rateLimits } = deps;
  const replies = new InteractionReplies(interaction);
  const channel = interaction.channel;
  const thread = channel?.isThread() ? channel : undefined;
  const uploadLimitBytes = interaction.attachmentSizeLimit || core.config.media.uploadLimitBytes;
  const surface = () => new InteractionSurface({ replies, rateLimits, logger, uploadLimitBytes });
  const isAdmin =
    !interaction.inGuild() || (interaction.memberPermissions?.any([PermissionFlagsBits.ManageGuild, PermissionFlagsBits.Administrator]) ?? false);
  const { channelId, user, guildId, client } = interaction;
  const workspace =
    deps.history && channelId !== null
      ? askerWorkspace({ client, askerId: user.id, channelId, channel, guildId, isDirectMessage: !interaction.inGuild() }, core, deps.history)
      : undefined;
  const voice = deps.voice?.controlFor({ guildId: interaction.guildId, channelId: interaction.channelId ?? '', userId: interaction.user.id });
  return {
    platform: 'discord',
    ...(interaction.guildId !== null && { workspaceId: interaction.guildId }),
    channelId: thread?.parentId ?? interaction.channelId ?? '',
    ...(thread && { threadId: thread.id }),
    invocationId: interaction.id,
    user: { id: interaction.user.id, displayName: memberName(interaction), isAdmin },
    isDirect: !interaction.inGuild(),
    uploadLimitBytes,
    voiceMessages: true,
    ...(voice && { voice }),
    ...(workspace && { workspace }),
    defer: (o) => replies.defer(o?.ephemeral ?? false),
    async reply(text, o) {
      for (const part of splitMarkdown(text, MESSAGE_LIMIT)) await replies.post({ content: part }, o?.ephemeral ?? false);
    },
    async replyStream(stream) {
      const target = surface();
      try {
        const rendered = await renderReply(
          stream,
          target,
          { failed: (error) => logger.error({ err: error }, 'reply stream failed') },
          { emptyText: EMPTY_ANSWER },
        );
        await finishReply(target, rendered, { showReasoning: options.showReasoning ?? false, logger });
      } catch (error) {
        await reportFailure(target, error, logger);
      } finally {
        target.dispose();
      }
    },
    async upload(file, text) {
      const target = surface();
      try {
        await postFile(target, file, text);
      } finally {
        target.dispose();
      }
    },
    approve: (request, signal) => deps.flow.approve({ request, askerId: user.id, show: (view) => replyApproval(replies, view), signal }),
  };
}

/** The platform-neutral context of one slash command: the invocation and its options. */
export function commandContext(interaction: ChatInputCommandInteraction, deps: CommandContextDeps): CommandContext {
  const options = optionValues(interaction);
  const subcommand = interaction.options.getSubcommand(false);
  return {
    ...invocationContext(interaction, deps, { showReasoning: options.get('reasoning') === true }),
    ...(subcommand !== null && { subcommand }),
    options,
  };
}
