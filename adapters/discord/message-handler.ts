import type { Message, PartialMessage, SendableChannels } from 'discord.js';
import { replacingReply } from '../../src/conversation/replacement.ts';
import type { HandleOptions, IncomingMessage, Replacement, ReplyStream } from '../../src/conversation/types.ts';
import type { Core } from '../../src/core.ts';
import type { Logger } from '../../src/log/logger.ts';
import { renderReply, type RenderedReply } from '../../src/streaming/render-reply.ts';
import { MessageGoneError } from '../../src/streaming/surface.ts';
import type { RecentMessage } from '../../src/tools/types.ts';
import { isAllowed } from './access-policy.ts';
import type { AnsweredQuestions } from './answered-questions.ts';
import { collectMedia, MAX_DOWNLOAD_BYTES } from './attachments.ts';
import { ChannelSurface } from './channel-surface.ts';
import type { DeletionWatch } from './deletion-watch.ts';
import type { DiscordHooks } from './hooks.ts';
import { toIncomingMessage, type ConversationPlace } from './incoming-message.ts';
import { repliedMessageId, triggerOf, type Trigger } from './message-trigger.ts';
import type { RateLimitBook } from './rate-limit-book.ts';
import type { ReplyChains } from './reply-chains.ts';
import { finishReply, reportFailure } from './reply-extras.ts';
import { filesToRead, repliedMessage } from './replied-message.ts';
import { shownContent, type ShownContent } from './shown-content.ts';
import { startTyping } from './typing.ts';
import type { VoiceNotePolicy } from './voice-note-policy.ts';

// Gateway resumes and several Herald instances on one store must not answer a message twice.
const SEEN_TTL_MS = 15 * 60_000;
const EMPTY_ANSWER = '_(The model returned an empty answer.)_';

export interface MessageHandlerDeps {
  core: Core;
  logger: Logger;
  book: RateLimitBook;
  chains: ReplyChains;
  voiceNotes: VoiceNotePolicy;
  hooks: DiscordHooks;
  deletions: DeletionWatch;
  answered: AnsweredQuestions;
}

function roleIdsOf(message: Message): string[] {
  return message.member ? [...message.member.roles.cache.keys()] : [];
}

function channelIdsOf(message: Message): string[] {
  const channel = message.channel;
  return channel.isThread() && channel.parentId ? [channel.id, channel.parentId] : [channel.id];
}

function recentMessages(channel: SendableChannels, before: string): (limit: number) => Promise<RecentMessage[]> {
  return async (limit) => {
    const fetched = await channel.messages.fetch({ limit: Math.min(Math.max(1, limit), 100), before });
    return [...fetched.values()].reverse().map((m) => ({
      author: m.member?.displayName ?? m.author.displayName,
      text: m.content,
      at: m.createdAt.toISOString(),
      isBot: m.author.bot,
    }));
  };
}

/** A reply being shown in a channel: its surface and what it watches; close() when it is over. */
interface OpenReply {
  surface: ChannelSurface;
  /** Herald's messages posted for it so far. */
  posted: string[];
  close(): void;
}

/** Answers the messages meant for Herald: one engine call per message, streamed into a Discord reply. */
export class MessageHandler {
  readonly #deps: MessageHandlerDeps;
  /** Replies being written, by the id of the question: an edit of it waits for the old reply to stop. */
  readonly #replying = new Map<string, Promise<void>>();

  constructor(deps: MessageHandlerDeps) {
    this.#deps = deps;
  }

  async handle(message: Message): Promise<void> {
    const { core, hooks } = this.#deps;
    const botId = message.client.user.id;
    if (hooks.shutdown?.drainingSignal.aborted) return;
    const trigger = triggerOf(message, botId);
    if (!trigger || !this.#allowed(message)) return;
    const shown = shownContent(message);
    if (trigger === 'voice-note' && (await this.#deps.voiceNotes.get(message.guildId!)) === 'off') return;
    if (!message.channel.isSendable()) return;
    if (!(await core.store.setIfAbsent(`discord:seen:${message.id}`, '1', SEEN_TTL_MS))) return;
    await this.#run(message.id, this.#answer(message, shown, message.channel, trigger, botId));
  }

  /**
   * A question Herald answered, edited to say something else while it is still addressed to Herald: answered again
   * in place of the old answer, when the engine agrees (it was the conversation's newest question, edited within the
   * edit window). An update that leaves the text as it was (Discord unfurling a link) is no edit.
   */
  async handleEdit(message: Message | PartialMessage): Promise<void> {
    const { core, hooks, answered } = this.#deps;
    if (message.partial || message.editedTimestamp === null || hooks.shutdown?.drainingSignal.aborted) return;
    const botId = message.client.user.id;
    const trigger = triggerOf(message, botId);
    if (!trigger || !this.#allowed(message) || !message.channel.isSendable()) return;
    const shown = shownContent(message);
    const before = await answered.get(message.id);
    if (!before || shown.content === before.content) return;
    if (!(await core.store.setIfAbsent(`discord:seen:${message.id}:${message.editedTimestamp}`, '1', SEEN_TTL_MS))) return;
    const replaces = { messageId: message.id, sentAt: message.createdTimestamp, editedAt: message.editedTimestamp };
    const earlier = this.#replying.get(message.id);
    await this.#run(message.id, this.#answerEdit(message, shown, message.channel, trigger, botId, replaces, earlier));
  }

  #allowed(message: Message): boolean {
    const subject = { guildId: message.guildId ?? undefined, channelIds: channelIdsOf(message), roleIds: roleIdsOf(message) };
    return isAllowed(this.#deps.core.config.discord?.access, subject);
  }

  async #run(questionId: string, reply: Promise<void>): Promise<void> {
    const { hooks } = this.#deps;
    this.#replying.set(questionId, reply);
    const forget = () => {
      if (this.#replying.get(questionId) === reply) this.#replying.delete(questionId);
    };
    reply.then(forget, forget);
    hooks.metrics?.inflightReplies.inc();
    try {
      await (hooks.shutdown ? hooks.shutdown.track(reply, 'discord reply') : reply);
    } finally {
      hooks.metrics?.inflightReplies.dec();
    }
  }

  /** Streams the answer to a new question as a Discord reply. */
  async #answer(message: Message, shown: ShownContent, channel: SendableChannels, trigger: Trigger, botId: string): Promise<void> {
    const { core, logger, answered } = this.#deps;
    const stop = new AbortController();
    const place = await this.#place(message);
    const reply = this.#open(message, channel, place, stop);
    try {
      await answered.set(message.id, { content: shown.content, messageIds: [] });
      const incoming = await this.#incoming(message, shown, place, trigger, botId);
      const stream = core.engine.handle(incoming, this.#handleOptions(message, channel, stop));
      await this.#show(message, shown, stream, reply, stop);
    } catch (error) {
      await reportFailure(reply.surface, error, logger);
    } finally {
      reply.close();
    }
  }

  /**
   * Answers an edited question again. Nothing is shown until the engine has replaced the old exchange; then the old
   * answer goes (a reply still being written for it stops and takes down what it posted) and the new one is written
   * as a reply to the same question.
   */
  async #answerEdit(
    message: Message,
    shown: ShownContent,
    channel: SendableChannels,
    trigger: Trigger,
    botId: string,
    replaces: Replacement,
    earlier: Promise<void> | undefined,
  ): Promise<void> {
    const { core, logger, answered } = this.#deps;
    const stop = new AbortController();
    const place = await this.#place(message);
    let stream: ReplyStream | undefined;
    try {
      const incoming = await this.#incoming(message, shown, place, trigger, botId);
      stream = await replacingReply(core.engine.handle(incoming, { ...this.#handleOptions(message, channel, stop), replaces }));
    } catch (error) {
      logger.warn({ err: error, question: message.id }, 'answering an edited question failed');
      return;
    }
    if (!stream) {
      logger.info({ channel: message.channelId, question: message.id }, 'edited question not answered again: not the newest, or edited too late');
      return;
    }
    await earlier?.catch(() => {});
    const reply = this.#open(message, channel, place, stop);
    try {
      const old = await answered.get(message.id);
      await reply.surface.remove(old?.messageIds ?? []);
      await answered.set(message.id, { content: shown.content, messageIds: [] });
      await this.#show(message, shown, stream, reply, stop);
    } catch (error) {
      await reportFailure(reply.surface, error, logger);
    } finally {
      reply.close();
    }
  }

  /**
   * The surface a reply to `message` is written on. Deleting the question while it is written stops it (and so does
   * an edit that replaces it); deleting one of its messages stops it and leaves the rest as it is.
   */
  #open(message: Message, channel: SendableChannels, place: ConversationPlace, stop: AbortController): OpenReply {
    const { core, logger, book, chains, deletions } = this.#deps;
    const watched = [message.id];
    deletions.watch(message.id, () => stop.abort());
    const chainRoot = message.inGuild() && !channel.isThread() ? place.threadId : undefined;
    const remember = (id: string) => {
      if (chainRoot !== undefined) chains.remember(id, chainRoot).catch((error: unknown) => logger.warn({ err: error }, 'remembering a reply chain failed'));
    };
    remember(message.id);
    const typing = startTyping(channel, logger);
    const posted: string[] = [];
    const surface = new ChannelSurface({
      channel,
      replyTo: message.id,
      book,
      logger,
      uploadLimitBytes: core.config.media.uploadLimitBytes,
      onPosted: (id) => {
        typing.stop();
        remember(id);
        posted.push(id);
        watched.push(id);
        deletions.watch(id, () => stop.abort(new MessageGoneError(id)));
      },
    });
    return {
      surface,
      posted,
      close: () => {
        typing.stop();
        deletions.unwatch(watched);
        surface.dispose();
      },
    };
  }

  async #incoming(message: Message, shown: ShownContent, place: ConversationPlace, trigger: Trigger, botId: string): Promise<IncomingMessage> {
    const { logger, voiceNotes } = this.#deps;
    const replied = await repliedMessage(message, logger);
    const files = filesToRead(shown, replied, botId);
    const media = await collectMedia(files.attachments, { voiceMessage: files.voiceMessage, maxBytes: MAX_DOWNLOAD_BYTES });
    const transcriptOnly = trigger === 'voice-note' && (await voiceNotes.get(message.guildId!)) === 'when-asked';
    return toIncomingMessage(message, { botId, place, shown, ...(replied && { replied }), media, transcriptOnly });
  }

  #handleOptions(message: Message, channel: SendableChannels, stop: AbortController): HandleOptions {
    const deadline = this.#deps.hooks.shutdown?.deadlineSignal;
    return {
      signal: deadline ? AbortSignal.any([deadline, stop.signal]) : stop.signal,
      recentMessages: recentMessages(channel, message.id),
      onSuperseded: () => stop.abort(),
    };
  }

  /** Renders the answer and remembers its messages, for an edit of the question to replace. */
  async #show(message: Message, shown: ShownContent, stream: ReplyStream, reply: OpenReply, stop: AbortController): Promise<void> {
    const { logger, answered } = this.#deps;
    const rendered = await renderReply(
      stream,
      reply.surface,
      { failed: (error) => logger.error({ err: error }, 'reply stream failed') },
      { emptyText: EMPTY_ANSWER, signal: stop.signal },
    );
    const withdrawn = rendered.stopped === 'aborted';
    if (withdrawn) await this.#withdraw(reply.surface, rendered, message);
    else await finishReply(reply.surface, rendered, { showReasoning: false, logger });
    await answered.set(message.id, { content: shown.content, messageIds: withdrawn ? [] : reply.posted });
  }

  /** The question was deleted, or edited to be answered again, while it was answered: what was posted of the answer goes. */
  async #withdraw(surface: ChannelSurface, rendered: RenderedReply, question: Message): Promise<void> {
    const { logger } = this.#deps;
    logger.info({ channel: question.channelId, question: question.id, removed: rendered.messages.length }, 'question withdrawn while it was answered; stopped and removed the answer');
    await surface.remove(rendered.messages).catch((error: unknown) => logger.warn({ err: error }, 'removing the answer to a withdrawn question failed'));
  }

  /** Direct messages are one conversation per channel, threads one per thread, and elsewhere each reply chain one. */
  async #place(message: Message): Promise<ConversationPlace> {
    const channel = message.channel;
    if (!message.inGuild()) return { channelId: channel.id };
    if (channel.isThread()) return { channelId: channel.parentId ?? channel.id, threadId: channel.id };
    const replied = repliedMessageId(message);
    return { channelId: channel.id, threadId: replied === undefined ? message.id : await this.#deps.chains.rootOf(replied) };
  }
}
