import type { Message, SendableChannels } from 'discord.js';
import type { Core } from '../../src/core.ts';
import type { Logger } from '../../src/log/logger.ts';
import { renderReply, type RenderedReply } from '../../src/streaming/render-reply.ts';
import { MessageGoneError } from '../../src/streaming/surface.ts';
import type { RecentMessage } from '../../src/tools/types.ts';
import { isAllowed } from './access-policy.ts';
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

/** Answers the messages meant for Herald: one engine call per message, streamed into a Discord reply. */
export class MessageHandler {
  readonly #deps: MessageHandlerDeps;

  constructor(deps: MessageHandlerDeps) {
    this.#deps = deps;
  }

  async handle(message: Message): Promise<void> {
    const { core, hooks } = this.#deps;
    const botId = message.client.user.id;
    if (hooks.shutdown?.drainingSignal.aborted) return;
    const trigger = triggerOf(message, botId);
    if (!trigger) return;
    const shown = shownContent(message);
    const subject = { guildId: message.guildId ?? undefined, channelIds: channelIdsOf(message), roleIds: roleIdsOf(message) };
    if (!isAllowed(core.config.discord?.access, subject)) return;
    if (trigger === 'voice-note' && (await this.#deps.voiceNotes.get(message.guildId!)) === 'off') return;
    if (!message.channel.isSendable()) return;
    if (!(await core.store.setIfAbsent(`discord:seen:${message.id}`, '1', SEEN_TTL_MS))) return;
    const reply = this.#reply(message, shown, message.channel, trigger, botId);
    hooks.metrics?.inflightReplies.inc();
    try {
      await (hooks.shutdown ? hooks.shutdown.track(reply, 'discord reply') : reply);
    } finally {
      hooks.metrics?.inflightReplies.dec();
    }
  }

  /**
   * Streams the answer as a Discord reply. Deleting the question while it is written stops it and removes what was
   * posted (the asker withdrew it); deleting one of its messages stops it and leaves the rest as it is.
   */
  async #reply(message: Message, shown: ShownContent, channel: SendableChannels, trigger: Trigger, botId: string): Promise<void> {
    const { core, logger, book, chains, deletions } = this.#deps;
    const stop = new AbortController();
    const watched = [message.id];
    deletions.watch(message.id, () => stop.abort());
    const place = await this.#place(message);
    const chainRoot = message.inGuild() && !channel.isThread() ? place.threadId : undefined;
    const remember = (id: string) => {
      if (chainRoot !== undefined) chains.remember(id, chainRoot).catch((error: unknown) => logger.warn({ err: error }, 'remembering a reply chain failed'));
    };
    remember(message.id);
    const typing = startTyping(channel, logger);
    const surface = new ChannelSurface({
      channel,
      replyTo: message.id,
      book,
      logger,
      uploadLimitBytes: core.config.media.uploadLimitBytes,
      onPosted: (id) => {
        typing.stop();
        remember(id);
        watched.push(id);
        deletions.watch(id, () => stop.abort(new MessageGoneError(id)));
      },
    });
    try {
      const replied = await repliedMessage(message, logger);
      const files = filesToRead(shown, replied, botId);
      const media = await collectMedia(files.attachments, { voiceMessage: files.voiceMessage, maxBytes: MAX_DOWNLOAD_BYTES });
      const transcriptOnly = trigger === 'voice-note' && (await this.#deps.voiceNotes.get(message.guildId!)) === 'when-asked';
      const incoming = toIncomingMessage(message, { botId, place, shown, ...(replied && { replied }), media, transcriptOnly });
      const deadline = this.#deps.hooks.shutdown?.deadlineSignal;
      const stream = core.engine.handle(incoming, {
        signal: deadline ? AbortSignal.any([deadline, stop.signal]) : stop.signal,
        recentMessages: recentMessages(channel, message.id),
      });
      const rendered = await renderReply(
        stream,
        surface,
        { failed: (error) => logger.error({ err: error }, 'reply stream failed') },
        { emptyText: EMPTY_ANSWER, signal: stop.signal },
      );
      if (rendered.stopped === 'aborted') await this.#withdraw(surface, rendered, message);
      else await finishReply(surface, rendered, { showReasoning: false, logger });
    } catch (error) {
      await reportFailure(surface, error, logger);
    } finally {
      typing.stop();
      deletions.unwatch(watched);
      surface.dispose();
    }
  }

  /** The question was deleted while it was answered: what was posted of the answer goes too. */
  async #withdraw(surface: ChannelSurface, rendered: RenderedReply, question: Message): Promise<void> {
    const { logger } = this.#deps;
    logger.info({ channel: question.channelId, question: question.id, removed: rendered.messages.length }, 'question deleted while it was answered; stopped and removed the answer');
    await surface.remove(rendered.messages).catch((error: unknown) => logger.warn({ err: error }, 'removing the answer to a deleted question failed'));
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
