/**
 * A reply streamed natively: chat.startStream / appendStream / stopStream. Slack shows the text to the recipient as
 * it arrives, takes standard markdown, and wants a thread and the recipient's user and team ids.
 */
import type { Logger } from '../../src/log/logger.ts';
import type { AnswerBlock } from './answer-controls.ts';
import { defuseMentions } from './defuse-mentions.ts';
import { GONE_ERRORS, OK, type PartOutcome, type ReplyPart, type ReplyTarget } from './reply-part.ts';
import { slackErrorCode, type SlackApi } from './slack-api.ts';

/** Errors meaning this workspace or token has no streaming at all: stop trying for the rest of the process. */
const UNAVAILABLE = new Set(['unknown_method', 'http_404', 'method_deprecated', 'feature_not_enabled', 'not_allowed_token_type', 'missing_scope']);

/** Whether to try native streaming; turned off for good once Slack says it has none. */
export class StreamingSwitch {
  #off: string | undefined;

  get enabled(): boolean {
    return this.#off === undefined;
  }

  get reason(): string | undefined {
    return this.#off;
  }

  turnOff(reason: string): void {
    this.#off ??= reason;
  }
}

export class StreamPart implements ReplyPart {
  readonly kind = 'stream';
  readonly ts: string;
  readonly #api: SlackApi;
  readonly #channel: string;
  #streaming = true;

  private constructor(api: SlackApi, channel: string, ts: string) {
    this.#api = api;
    this.#channel = channel;
    this.ts = ts;
  }

  /**
   * Starts a stream showing `text`, or returns undefined when streaming is not possible here or now (no thread,
   * no recipient, the start/stop budget spent, or Slack refusing): the caller posts an ordinary message instead.
   */
  static async start(api: SlackApi, target: ReplyTarget, text: string, streaming: StreamingSwitch, logger: Logger): Promise<StreamPart | undefined> {
    const { threadTs, recipient } = target;
    if (!threadTs || !recipient || !streaming.enabled) return undefined;
    // The stop is budgeted with the start, so a started stream can always be finished.
    await api.budget.ready(['chat.startStream', 'chat.stopStream']);
    if (!api.budget.tryTake(['chat.startStream', 'chat.stopStream'])) return undefined;
    try {
      const started = await api.client.chat.startStream({
        channel: target.channel,
        thread_ts: threadTs,
        recipient_user_id: recipient.userId,
        recipient_team_id: recipient.teamId,
        markdown_text: defuseMentions(text),
      });
      return new StreamPart(api, target.channel, String(started.ts));
    } catch (error) {
      const code = slackErrorCode(error);
      if (code && UNAVAILABLE.has(code)) {
        streaming.turnOff(code);
        logger.warn({ code }, 'Slack has no native streaming here; replies are posted and edited instead');
      } else {
        logger.warn({ err: error, code }, 'chat.startStream failed; posting the reply instead');
      }
      return undefined;
    }
  }

  /** Whether the stream is still open (not stopped by Herald, nor found over). */
  get streaming(): boolean {
    return this.#streaming;
  }

  async append(delta: string): Promise<PartOutcome> {
    try {
      await this.#api.call('chat.appendStream', this.#channel, (c) =>
        c.chat.appendStream({ channel: this.#channel, ts: this.ts, markdown_text: defuseMentions(delta) }),
      );
      return OK;
    } catch (error) {
      const outcome = this.#refused(error, delta);
      // Close what is left of the stream (its reserved stop) so it does not linger as "writing"; it may already be over.
      if (outcome.status === 'overflow') await this.#api.client.chat.stopStream({ channel: this.#channel, ts: this.ts }).catch(() => {});
      if (outcome.status !== 'ok') this.#streaming = false;
      return outcome;
    }
  }

  async finish(delta: string, blocks: readonly AnswerBlock[]): Promise<PartOutcome> {
    this.#streaming = false;
    try {
      await this.#api.client.chat.stopStream({
        channel: this.#channel,
        ts: this.ts,
        ...(delta !== '' && { markdown_text: defuseMentions(delta) }),
        ...(blocks.length > 0 && { blocks: [...blocks] }),
      });
      return OK;
    } catch (error) {
      return this.#refused(error, delta);
    }
  }

  /**
   * The user pressed stop, or someone deleted the message; anything else (the stream aged out, the text is too
   * long) continues elsewhere.
   */
  #refused(error: unknown, delta: string): PartOutcome {
    const code = slackErrorCode(error);
    if (code === 'stopped_by_user') return { status: 'stopped' };
    if (code && GONE_ERRORS.has(code)) return { status: 'gone' };
    return { status: 'overflow', rest: delta };
  }
}
