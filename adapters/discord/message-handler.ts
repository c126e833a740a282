import type { Message, PartialMessage, SendableChannels } from 'discord.js';
import type { IncomingMessage } from '../../src/conversation/types.ts';
import type { Core } from '../../src/core.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { Question } from '../../src/platform/platform.ts';
import type { QuestionFlow } from '../../src/platform/question-flow.ts';
import type { HistoryCache } from '../../src/workspace/history-cache.ts';
import { directMessageAccess, isAllowed } from './access-policy.ts';
import { collectMedia, MAX_DOWNLOAD_BYTES } from './attachments.ts';
import { ChannelAnswer } from './channel-answer.ts';
import { toIncomingMessage, type ConversationLocation } from './incoming-message.ts';
import { repliedMessageId, triggerOf, type Trigger } from './message-trigger.ts';
import type { RouteRateLimits } from './route-rate-limits.ts';
import type { ReplyChains } from './reply-chains.ts';
import { filesToRead, repliedMessage } from './replied-message.ts';
import { visibleContent, type VisibleContent } from './visible-content.ts';
import { DiscordWorkspace } from './workspace-history.ts';
import type { VoiceNotePolicy } from './voice-note-policy.ts';

export interface MessageHandlerDeps {
  core: Core;
  logger: Logger;
  rateLimits: RouteRateLimits;
  chains: ReplyChains;
  voiceNotes: VoiceNotePolicy;
  flow: QuestionFlow;
  history: HistoryCache;
}

function roleIdsOf(message: Message): string[] {
  return message.member ? [...message.member.roles.cache.keys()] : [];
}

function channelIdsOf(message: Message): string[] {
  const channel = message.channel;
  return channel.isThread() && channel.parentId ? [channel.id, channel.parentId] : [channel.id];
}

/** Turns Discord messages meant for Herald, and edits of them, into the core's questions. */
export class MessageHandler {
  readonly #deps: MessageHandlerDeps;

  constructor(deps: MessageHandlerDeps) {
    this.#deps = deps;
  }

  async handle(message: Message): Promise<void> {
    const botId = message.client.user.id;
    const trigger = triggerOf(message, botId);
    if (!trigger || !(await this.#allowed(message))) return;
    const content = visibleContent(message);
    if (trigger === 'voice-note' && (await this.#deps.voiceNotes.get(message.guildId!)) === 'off') return;
    if (!message.channel.isSendable()) return;
    await this.#deps.flow.asked(this.#question(message, message.channel, content, trigger, botId));
  }

  /** An edit of a message still addressed to Herald; the core decides whether it replaces an answer. */
  async handleEdit(message: Message | PartialMessage): Promise<void> {
    if (message.partial || message.editedTimestamp === null) return;
    const botId = message.client.user.id;
    const trigger = triggerOf(message, botId);
    if (!trigger || !message.channel.isSendable() || !(await this.#allowed(message))) return;
    await this.#deps.flow.edited(this.#question(message, message.channel, visibleContent(message), trigger, botId), message.editedTimestamp);
  }

  /**
   * The operator's lists in a server; in a direct message, DISCORD_DMS. A refused DM gets no reply, as a message from
   * someone without an allowed role in a server gets none.
   */
  async #allowed(message: Message): Promise<boolean> {
    const access = this.#deps.core.config.discord?.access;
    if (message.guildId === null) {
      const allowed = await directMessageAccess(message.client, access).allows(message.author.id);
      if (!allowed) this.#deps.logger.debug({ user: message.author.id }, 'direct message not answered: the sender is not a member Herald serves');
      return allowed;
    }
    return isAllowed(access, { guildId: message.guildId, channelIds: channelIdsOf(message), roleIds: roleIdsOf(message) });
  }

  #question(message: Message, channel: SendableChannels, content: VisibleContent, trigger: Trigger, botId: string): Question {
    const { core, logger, rateLimits, chains } = this.#deps;
    let conversation: Promise<ConversationLocation> | undefined;
    const conversationOf = () => (conversation ??= this.#locate(message));
    return {
      key: message.id,
      text: content.content,
      sentAt: message.createdTimestamp,
      read: async (signal) => this.#incoming(message, content, await conversationOf(), trigger, botId, signal),
      workspace: this.#workspace(message),
      openAnswer: (events) =>
        new ChannelAnswer({
          channel,
          questionId: message.id,
          // A guild channel's timeline is threaded by reply chains; their root is the conversation.
          chainRoot: message.inGuild() && !channel.isThread() ? conversationOf().then((located) => located.threadId) : Promise.resolve(undefined),
          chains,
          rateLimits,
          logger,
          uploadLimitBytes: core.config.media.uploadLimitBytes,
          events,
        }),
    };
  }

  #workspace(message: Message): DiscordWorkspace {
    const { core, history } = this.#deps;
    const channel = message.channel;
    const place = channel.isThread()
      ? { channelId: channel.parentId ?? channel.id, threadId: channel.id, isDirectMessage: false }
      : { channelId: channel.id, isDirectMessage: !message.inGuild() };
    return new DiscordWorkspace({
      client: message.client,
      askerId: message.author.id,
      place,
      access: core.config.discord?.access,
      ...(message.guildId && { guildId: message.guildId }),
      cache: history,
      maxPages: core.config.workspace.historyPages,
      questionId: message.id,
    });
  }

  async #incoming(
    message: Message,
    content: VisibleContent,
    conversation: ConversationLocation,
    trigger: Trigger,
    botId: string,
    signal: AbortSignal,
  ): Promise<IncomingMessage> {
    const { logger, voiceNotes } = this.#deps;
    const replied = await repliedMessage(message, logger);
    const files = filesToRead(content, replied, botId);
    const media = await collectMedia(files.attachments, { voiceMessage: files.voiceMessage, maxBytes: MAX_DOWNLOAD_BYTES, signal });
    const transcriptOnly = trigger === 'voice-note' && (await voiceNotes.get(message.guildId!)) === 'when-asked';
    return toIncomingMessage(message, { botId, conversation, visible: content, ...(replied && { replied }), media, transcriptOnly });
  }

  /** Direct messages are one conversation per channel, threads one per thread, and elsewhere each reply chain one. */
  async #locate(message: Message): Promise<ConversationLocation> {
    const channel = message.channel;
    if (!message.inGuild()) return { channelId: channel.id };
    if (channel.isThread()) return { channelId: channel.parentId ?? channel.id, threadId: channel.id };
    const replied = repliedMessageId(message);
    return { channelId: channel.id, threadId: replied === undefined ? message.id : await this.#deps.chains.rootOf(replied) };
  }
}
