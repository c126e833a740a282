import type { Client, Message, PartialMessage, SendableChannels } from 'discord.js';
import type { ChannelTriggers, IncomingMessage } from '../../src/conversation/types.ts';
import type { Core } from '../../src/core.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { AnswerEvents, AnswerWriter, Question } from '../../src/platform/platform.ts';
import type { QuestionFlow } from '../../src/platform/question-flow.ts';
import { withStatusReactions } from '../../src/platform/status-reactions.ts';
import type { HistoryCache } from '../../src/workspace/history-cache.ts';
import { directMessageAccess, isAllowed } from './access-policy.ts';
import { collectMedia, MAX_DOWNLOAD_BYTES } from './attachments.ts';
import { answerThread } from './auto-thread.ts';
import { ChannelAnswer } from './channel-answer.ts';
import { DeferredAnswer } from './deferred-answer.ts';
import { isUnknownMessage } from './discord-surface.ts';
import { toIncomingMessage, type ConversationLocation } from './incoming-message.ts';
import type { DiscordRevival } from './question-revival.ts';
import { fromPerson, repliedMessageId, triggerOf, type Trigger } from './message-trigger.ts';
import type { RouteRateLimits } from './route-rate-limits.ts';
import type { ReplyChains } from './reply-chains.ts';
import { filesToRead, repliedMessage } from './replied-message.ts';
import { discordStatusMark } from './status-reactions.ts';
import { visibleContent, type VisibleContent } from './visible-content.ts';
import { askerWorkspace } from './asker-workspace.ts';
import type { DiscordWorkspace } from './workspace-history.ts';
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

/** Triggers that open a thread for their question where the channel asks for it (a reply to Herald continues its chain). */
const THREAD_OPENERS: ReadonlySet<Trigger> = new Set(['mention', 'trigger-word', 'channel']);

/** How a message is answered: why, and the channel's choices for it. */
interface Addressing {
  trigger: Trigger;
  triggers: ChannelTriggers;
  /** A thread is opened from the question (an edited one has it already) and the answer goes there. */
  inOwnThread: boolean;
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
    const addressing = await this.#addressing(message, botId);
    if (!addressing || !(await this.#allowed(message))) return;
    const content = visibleContent(message);
    if (addressing.trigger === 'voice-note' && (await this.#deps.voiceNotes.get(message.guildId!)) === 'off') return;
    if (!message.channel.isSendable()) return;
    await this.#deps.flow.asked(this.#question(message, message.channel, content, addressing, botId));
  }

  /** An edit of a message still addressed to Herald; the core decides whether it replaces an answer. */
  async handleEdit(message: Message | PartialMessage): Promise<void> {
    if (message.partial || message.editedTimestamp === null) return;
    const botId = message.client.user.id;
    const addressing = await this.#addressing(message, botId);
    if (!addressing || !message.channel.isSendable() || !(await this.#allowed(message))) return;
    await this.#deps.flow.edited(this.#question(message, message.channel, visibleContent(message), addressing, botId), message.editedTimestamp);
  }

  /** Whether the core finds the message addressed to Herald, under its channel's triggers; undefined to stay quiet. */
  async #addressing(message: Message, botId: string): Promise<Addressing | undefined> {
    if (!fromPerson(message, botId)) return undefined;
    const channel = message.channel;
    const triggers = await this.#deps.core.engine.triggersFor({
      platform: 'discord',
      ...(message.guildId !== null && { workspaceId: message.guildId }),
      channelId: channel.isThread() ? (channel.parentId ?? channel.id) : channel.id,
    });
    const trigger = triggerOf(message, botId, triggers);
    if (!trigger) return undefined;
    const threadable = message.inGuild() && !channel.isThread() && THREAD_OPENERS.has(trigger);
    return { trigger, triggers, inOwnThread: threadable && triggers.autoThread };
  }

  /**
   * A question Herald answered, read again from Discord for a press on its answer; undefined once it was deleted or
   * is no longer addressed to Herald.
   */
  async questionAt(client: Client<true>, channelId: string, messageId: string): Promise<Question | undefined> {
    const channel = await client.channels.fetch(channelId);
    if (!channel?.isSendable()) return undefined;
    const message = await channel.messages.fetch(messageId).catch((error: unknown) => {
      if (isUnknownMessage(error)) return undefined;
      throw error;
    });
    if (!message) return undefined;
    const botId = client.user.id;
    const addressing = await this.#addressing(message, botId);
    if (!addressing || !(await this.#allowed(message))) return undefined;
    return this.#question(message, channel, visibleContent(message), addressing, botId);
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

  #question(message: Message, channel: SendableChannels, content: VisibleContent, addressing: Addressing, botId: string): Question {
    const { logger } = this.#deps;
    const { trigger, triggers, inOwnThread } = addressing;
    let conversation: Promise<ConversationLocation> | undefined;
    // A thread opened from a message has the message's id: its conversation is known before the thread exists.
    const conversationOf = () =>
      (conversation ??= inOwnThread ? Promise.resolve({ channelId: channel.id, threadId: message.id }) : this.#locate(message));
    return {
      key: message.id,
      text: content.content,
      sentAt: message.createdTimestamp,
      read: async (signal) => this.#incoming(message, content, await conversationOf(), trigger, botId, signal),
      workspace: this.#workspace(message),
      openAnswer: (events) => {
        const answer = inOwnThread
          ? new DeferredAnswer(
              answerThread(message, botId, logger).then((place) =>
                // Kept in the channel, the answer still belongs to the question's conversation, as a reply chain.
                this.#answerIn(place, message, events, Promise.resolve(place === channel ? message.id : undefined)),
              ),
            )
          : // A guild channel's timeline is threaded by reply chains; their root is the conversation.
            this.#answerIn(
              channel,
              message,
              events,
              message.inGuild() && !channel.isThread() ? conversationOf().then((located) => located.threadId) : Promise.resolve(undefined),
            );
        const mark = triggers.statusReactions ? discordStatusMark(message, botId) : undefined;
        return mark ? withStatusReactions(answer, mark, logger) : answer;
      },
      revival: { channelId: channel.id, messageId: message.id, inOwnThread } satisfies DiscordRevival,
    };
  }

  #answerIn(channel: SendableChannels, message: Message, events: AnswerEvents, chainRoot: Promise<string | undefined>): AnswerWriter {
    const { core, logger, rateLimits, chains } = this.#deps;
    return new ChannelAnswer({
      channel,
      questionId: message.id,
      chainRoot,
      chains,
      rateLimits,
      logger,
      uploadLimitBytes: core.config.media.uploadLimitBytes,
      events,
    });
  }

  #workspace(message: Message): DiscordWorkspace {
    const { client, author, channelId, channel, guildId, id } = message;
    const at = { client, askerId: author.id, channelId, channel, guildId, isDirectMessage: !message.inGuild(), questionId: id };
    return askerWorkspace(at, this.#deps.core, this.#deps.history);
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
