import { randomBytes } from 'node:crypto';
import type { ReplyStream } from '../../src/conversation/types.ts';
import { describeError, HeraldError } from '../../src/errors.ts';
import type { AnswerControls, AnswerEvents, AnswerWriter, ApprovalMessage, ApprovalView, WrittenAnswer } from '../../src/platform/platform.ts';
import { QueuedNote } from '../../src/platform/queued-note.ts';
import { MessageGoneError } from '../../src/streaming/surface.ts';
import { stopBlock } from './answer-controls.ts';
import { postApproval } from './approval-message.ts';
import { queuedNoteLine } from './queued-note.ts';
import { deleteMessages } from './delete-messages.ts';
import { messageKey, tsOfKey } from './message-key.ts';
import { toMrkdwn } from './mrkdwn.ts';
import type { ReplyTarget } from './reply-part.ts';
import type { SlackRuntime } from './runtime.ts';
import { sendReply } from './send-reply.ts';

/** Where an answer goes and how the asker sees Herald working. */
export interface SlackAnswerOptions {
  target: ReplyTarget;
  /** The question's ts: the thread it answers in is remembered for follow-ups. */
  questionTs: string;
  /** Assistant threads show what the bot is doing with setStatus. */
  status?: (text: string) => Promise<void>;
  clearStatus?: () => Promise<void>;
}

/**
 * An answer written as Slack messages: "thinking…" (in assistant threads) from the start, the reply streamed or
 * posted and edited, and the status cleared when the answer ends without a message that clears it.
 */
export class SlackAnswer implements AnswerWriter {
  readonly #rt: SlackRuntime;
  readonly #options: SlackAnswerOptions;
  readonly #events: AnswerEvents;
  /** Whether a message went into the thread (Slack then clears the status itself). */
  #replied = false;
  readonly #queued: QueuedNote;

  constructor(rt: SlackRuntime, options: SlackAnswerOptions, events: AnswerEvents) {
    this.#rt = rt;
    this.#options = options;
    this.#events = events;
    this.#queued = new QueuedNote(queuedNoteLine(rt.api, options.target), rt.logger);
    options.status?.('thinking…').catch((error: unknown) => rt.logger.debug({ err: error }, 'Slack status not shown'));
  }

  async write(stream: ReplyStream, signal: AbortSignal, controls?: AnswerControls): Promise<WrittenAnswer> {
    const { target, questionTs } = this.#options;
    const { channel } = target;
    const questionKey = messageKey(channel, questionTs);
    // Known as Herald's thread from its first message on, so a follow-up sent the moment the answer shows is one.
    let remembered: Promise<void> | undefined;
    const sent = await sendReply(this.#rt, this.#queued.around(stream), {
      // Each answer its own id: an edited question's new answer is rated afresh.
      feedbackId: `${questionKey}/${randomBytes(4).toString('hex')}`,
      ...(controls?.stop && { stopButton: stopBlock(questionKey) }),
      target,
      ...(this.#options.status && { status: this.#options.status }),
      ...(this.#options.clearStatus && { clearStatus: this.#options.clearStatus }),
      onStoppedByUser: () => this.#events.stoppedByAsker(),
      onPosted: (ts) => {
        this.#replied = true;
        this.#events.posted(messageKey(channel, ts));
        if (target.threadTs && !remembered) {
          remembered = this.#rt.threads
            .remember(this.#rt.identity.teamId, channel, target.threadTs, questionTs)
            .catch((error: unknown) => this.#rt.logger.warn({ err: error }, 'remembering the thread failed'));
        }
      },
      signal: withSlackHandles(signal),
    });
    await remembered;
    return {
      messageKeys: sent.messageTs.map((ts) => messageKey(channel, ts)),
      ...(sent.rendered && { text: sent.rendered.text }),
      ...(sent.stopped && { stopped: sent.stopped }),
    };
  }

  askApproval(view: ApprovalView): Promise<ApprovalMessage> {
    return postApproval(this.#rt.api, this.#options.target, view);
  }

  remove(messageKeys: readonly string[]): Promise<void> {
    return deleteMessages(this.#rt.api, this.#options.target.channel, messageKeys.map(tsOfKey));
  }

  async fail(error: unknown): Promise<void> {
    const { logger, api } = this.#rt;
    const { channel, threadTs } = this.#options.target;
    if (error instanceof MessageGoneError) {
      logger.info({ channel, message: error.handle }, 'reply deleted before it was finished; stopped answering');
      return;
    }
    const known = error instanceof HeraldError;
    if (known) logger.warn({ err: error, channel }, 'Slack question not answered');
    else logger.error({ err: error, channel }, 'Slack answer failed');
    const text = `⚠️ ${toMrkdwn(describeError(error).message)}`;
    await api.call('chat.postMessage', channel, (c) => c.chat.postMessage({ channel, ...(threadTs && { thread_ts: threadTs }), text }));
    this.#replied = true;
  }

  async close(): Promise<void> {
    await this.#queued.clear();
    if (!this.#replied) await this.#options.clearStatus?.().catch(() => {});
  }
}

/** The signal as sendReply reads it: a deleted message named by its ts rather than the core's key. */
function withSlackHandles(signal: AbortSignal): AbortSignal {
  const local = new AbortController();
  const forward = () => {
    const reason: unknown = signal.reason;
    local.abort(reason instanceof MessageGoneError && reason.handle !== undefined ? new MessageGoneError(tsOfKey(reason.handle)) : reason);
  };
  if (signal.aborted) forward();
  else signal.addEventListener('abort', forward, { once: true });
  return local.signal;
}
