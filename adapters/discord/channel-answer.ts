import type { SendableChannels } from 'discord.js';
import type { ReplyStream } from '../../src/conversation/types.ts';
import type { Logger } from '../../src/log/logger.ts';
import type {
  AnswerControls,
  AnswerEvents,
  AnswerWriter,
  ApprovalMessage,
  ApprovalView,
  ShownAnswer,
  WrittenAnswer,
} from '../../src/platform/platform.ts';
import { QueuedNote } from '../../src/platform/queued-note.ts';
import { renderReply } from '../../src/streaming/render-reply.ts';
import { answerButtons } from './answer-buttons.ts';
import { AnswerMessages, EMPTY_ANSWER } from './answer-messages.ts';
import { postApproval } from './approval-message.ts';
import { ChannelSurface } from './channel-surface.ts';
import type { RouteRateLimits } from './route-rate-limits.ts';
import { finishReply, reportFailure } from './finish-reply.ts';
import { queuedNoteLine } from './queued-note.ts';
import type { ReplyChains } from './reply-chains.ts';
import { startTyping } from './typing.ts';

export interface ChannelAnswerOptions {
  channel: SendableChannels;
  /** The question: the answer's first message replies to it. */
  questionId: string;
  /** The reply chain the answer continues, when it is one (a guild channel's timeline). */
  chainRoot: Promise<string | undefined>;
  chains: ReplyChains;
  rateLimits: RouteRateLimits;
  logger: Logger;
  uploadLimitBytes: number;
  events: AnswerEvents;
}

/** An answer written as Discord messages in the question's channel: typing until the first text, then streamed. */
export class ChannelAnswer implements AnswerWriter {
  readonly #surface: ChannelSurface;
  readonly #logger: Logger;
  readonly #typing;
  readonly #posted: string[] = [];
  readonly #questionId: string;
  readonly #messages: AnswerMessages;
  readonly #channel: SendableChannels;
  readonly #queued: QueuedNote;

  constructor(options: ChannelAnswerOptions) {
    const { channel, logger, chains, events } = options;
    this.#logger = logger;
    this.#channel = channel;
    this.#questionId = options.questionId;
    this.#messages = new AnswerMessages(channel.client.rest, channel.id, options.questionId);
    const remember = (id: string) => {
      void options.chainRoot
        .then((root) => (root === undefined ? undefined : chains.remember(id, root)))
        .catch((error: unknown) => logger.warn({ err: error }, 'remembering a reply chain failed'));
    };
    remember(options.questionId);
    this.#typing = startTyping(channel, logger);
    this.#queued = new QueuedNote(queuedNoteLine(channel.client.rest, channel.id, options.questionId), logger);
    this.#surface = new ChannelSurface({
      channel,
      replyTo: options.questionId,
      rateLimits: options.rateLimits,
      logger,
      uploadLimitBytes: options.uploadLimitBytes,
      onPosted: (id) => {
        this.#typing.stop();
        remember(id);
        this.#posted.push(id);
        events.posted(id);
      },
    });
  }

  async write(stream: ReplyStream, signal: AbortSignal, controls: AnswerControls = {}): Promise<WrittenAnswer> {
    this.#surface.streamingButtons = answerButtons(this.#questionId, controls);
    try {
      const rendered = await renderReply(
        stream,
        this.#surface,
        {
          status: (phase, text) => this.#queued.status(phase, text),
          failed: (error) => this.#logger.error({ err: error }, 'reply stream failed'),
        },
        { emptyText: EMPTY_ANSWER, signal },
      );
      if (!rendered.stopped) await finishReply(this.#surface, rendered, { showReasoning: false, logger: this.#logger });
      return {
        messageKeys: [...this.#posted],
        text: rendered.text,
        ...(rendered.citations.length > 0 && { citations: rendered.citations }),
        ...(rendered.stopped && { stopped: rendered.stopped }),
      };
    } catch (error) {
      // Nothing is left to stop: the buttons go with the failure.
      if (this.#surface.streamingButtons.length > 0) await this.showControls(this.#posted, {}).catch(() => {});
      throw error;
    }
  }

  showControls(messageKeys: readonly string[], controls: AnswerControls): Promise<void> {
    return this.#messages.showControls(messageKeys, controls);
  }

  rewrite(messageKeys: readonly string[], shown: ShownAnswer, controls: AnswerControls): Promise<string[]> {
    return this.#messages.rewrite(messageKeys, shown, controls);
  }

  remove(messageKeys: readonly string[]): Promise<void> {
    return this.#surface.remove(messageKeys);
  }

  askApproval(view: ApprovalView): Promise<ApprovalMessage> {
    return postApproval(this.#channel.client.rest, this.#channel.id, this.#questionId, view);
  }

  fail(error: unknown): Promise<void> {
    return reportFailure(this.#surface, error, this.#logger);
  }

  async close(): Promise<void> {
    this.#typing.stop();
    await this.#queued.clear();
    this.#surface.dispose();
  }
}
