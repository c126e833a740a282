/**
 * The core's ReplySurface over Slack, in append mode: each message of a reply is streamed natively where Slack
 * allows it and otherwise posted and edited (MessagePart). The core's StreamingReply makes one call at a time,
 * merges text that arrives meanwhile and splits at SLACK_MAX_LENGTH; Slack's real limit depends on the blocks too, so
 * what a message does not take — Slack says it is too long, or the stream has aged out — is handed back as an
 * Overflow for the core to continue in a new message (posted, not streamed).
 *
 * The reply's last close is held until `finish(blocks)`, so the sources go into that final call; only there does the
 * surface continue a message itself, to place the sources. Once Slack says a message of the reply was deleted,
 * nothing more is sent and the next call throws MessageGoneError. A posted message shows the controls (Herald's
 * Stop) while it grows, and its last edit takes them away; a stream has Slack's own stop.
 */
import type { Logger } from '../../src/log/logger.ts';
import { splitHead } from '../../src/streaming/markdown-split.ts';
import { MessageGoneError, type Overflow, type ReplySurface } from '../../src/streaming/surface.ts';
import { type AnswerBlock, isFeedbackBlock } from './answer-controls.ts';
import { MessagePart, PROGRESS_EDIT_KEEP } from './message-part.ts';
import type { PartOutcome, ReplyPart, ReplyTarget } from './reply-part.ts';
import { slackErrorCode, type SlackApi } from './slack-api.ts';
import { StreamPart, type StreamingSwitch } from './stream-part.ts';

/** Under Slack's 12,000-character limit for markdown text (a streamed call, `markdown_text`, a markdown block). */
export const SLACK_MAX_LENGTH = 11_000;
/** Shortest gap between appends to one stream, and between edits of one message. */
const STREAM_GAP_MS = 250;
const EDIT_GAP_MS = 1000;
/** Longest pause between progress edits while the workspace's chat.update calls are taken. */
const MAX_EDIT_WAIT_MS = 3000;

export interface SlackSurfaceOptions {
  api: SlackApi;
  target: ReplyTarget;
  streaming: StreamingSwitch;
  logger: Logger;
  /** The user pressed stop on a streamed answer: cancel the reply. */
  onStoppedByUser?: () => void;
  /** The ts of each message of the reply, once Slack has it. */
  onPosted?: (ts: string) => void;
  /** Shown under a posted message while it grows (a native stream has Slack's own stop). */
  controls?: readonly AnswerBlock[];
  maxLength?: number;
}

/** One message of the reply: its parts (more than one only when the sources had to go on below it). */
interface SlackMessage {
  parts: ReplyPart[];
  /** Text Slack did not take when the message was posted; handed back on the next call. */
  untaken: string;
}

export class SlackReplySurface implements ReplySurface {
  readonly mode = 'append';
  readonly maxLength: number;
  readonly #options: SlackSurfaceOptions;
  readonly #messages = new Map<string, SlackMessage>();
  #lastClose: { handle: string; text: string } | undefined;
  #lastKind: ReplyPart['kind'] = 'stream';
  /** A message ran over: the next one is posted rather than streamed. */
  #overflowed = false;
  #stopped = false;
  #gone: MessageGoneError | undefined;
  /** Messages of the reply someone deleted. */
  readonly #deleted = new Set<string>();
  /** Messages already reported to onPosted. */
  readonly #reported = new Set<string>();

  constructor(options: SlackSurfaceOptions) {
    this.#options = options;
    this.maxLength = options.maxLength ?? SLACK_MAX_LENGTH;
  }

  /** Timestamps of every Slack message the reply used so far, in order. */
  get messageTs(): string[] {
    return [...this.#messages.values()]
      .flatMap((m) => m.parts)
      .map((p) => p.ts)
      .filter((ts) => ts !== '');
  }

  /** Whether any message was started. */
  get opened(): boolean {
    return this.#messages.size > 0;
  }

  get stoppedByUser(): boolean {
    return this.#stopped;
  }

  /** Whether Slack said a message of the reply was deleted. */
  get deleted(): boolean {
    return this.#gone !== undefined;
  }

  /** Slack's event says a message was deleted: true when it was one of this reply's, which then sends nothing more. */
  messageDeleted(ts: string): boolean {
    if (!this.messageTs.includes(ts)) return false;
    this.#deleted.add(ts);
    this.#gone ??= new MessageGoneError(ts);
    return true;
  }

  async open(text: string): Promise<string> {
    this.#throwIfGone();
    const handle = String(this.#messages.size + 1);
    const message: SlackMessage = { parts: [], untaken: '' };
    this.#messages.set(handle, message);
    if (this.#stopped) return handle;
    await this.#closeHeld([]);
    const { api, target, streaming, logger } = this.#options;
    const stream = this.#overflowed ? undefined : await StreamPart.start(api, target, text, streaming, logger);
    this.#overflowed = false;
    if (stream) message.parts.push(stream);
    else message.untaken = await this.#post(text, message, this.#options.controls);
    this.#lastKind = message.parts.at(-1)?.kind ?? 'message';
    this.#reportPosted();
    return handle;
  }

  async update(handle: string, text: string): Promise<Overflow | void> {
    this.#throwIfGone();
    if (this.#stopped) return undefined;
    const message = this.#messages.get(handle)!;
    if (message.untaken !== '') return this.#overflow(message.untaken + text);
    const part = message.parts.at(-1);
    if (!part) return undefined;
    const outcome = await part.append(text);
    // The message is over: the controls move on to the next one.
    if (outcome.status === 'overflow' && part instanceof MessagePart && part.showsControls) await part.finish('', []);
    return this.#settle(part, outcome);
  }

  async close(handle: string, text: string, options: { last?: boolean } = {}): Promise<Overflow | void> {
    this.#throwIfGone();
    if (this.#stopped) return undefined;
    const message = this.#messages.get(handle)!;
    if (message.untaken !== '') return this.#overflow(message.untaken + text);
    if (options.last) {
      this.#lastClose = { handle, text };
      return undefined;
    }
    const part = message.parts.at(-1);
    if (!part) return undefined;
    const overflow = await this.#settle(part, await part.finish(text, []));
    this.#reportPosted();
    return overflow;
  }

  delayMs(kind: 'open' | 'update'): number {
    const { budget } = this.#options.api;
    if (kind === 'open') return 0;
    if (this.#lastKind === 'stream') return Math.max(STREAM_GAP_MS, budget.waitMs('chat.appendStream'));
    const last = [...this.#messages.values()].at(-1)?.parts.at(-1);
    // A held message asks for its reservation again each gap; a shown one waits for a free progress edit.
    if (!(last instanceof MessagePart) || last.held) return EDIT_GAP_MS;
    return Math.min(MAX_EDIT_WAIT_MS, Math.max(EDIT_GAP_MS, budget.waitMs('chat.update', undefined, PROGRESS_EDIT_KEEP)));
  }

  /** Ends the reply: the last message gets its remaining text and `blocks` (sources, feedback) in one call. */
  async finish(blocks: readonly AnswerBlock[]): Promise<void> {
    try {
      if (this.#stopped || this.#gone) return;
      if (this.#lastClose) await this.#closeHeld(blocks);
      else if (blocks.length > 0) {
        const message = [...this.#messages.values()].at(-1);
        const last = message?.parts.at(-1);
        if (message && last) await this.#finishWithSources(message, await last.finish('', blocks), blocks);
      }
    } finally {
      this.#reportPosted();
      this.#release();
    }
  }

  /**
   * Sends nothing more but the stop of a stream still open, so it does not go on showing as being written; gives
   * back what was reserved for the reply.
   */
  async abandon(): Promise<void> {
    this.#lastClose = undefined;
    this.#release();
    for (const part of [...this.#messages.values()].flatMap((m) => m.parts)) {
      if (part instanceof StreamPart && part.streaming && !this.#deleted.has(part.ts)) await part.finish('', []);
    }
  }

  /** Gives back the reservations of final edits that will not be made. */
  #release(): void {
    for (const part of [...this.#messages.values()].flatMap((m) => m.parts)) if (part instanceof MessagePart) part.release();
  }

  #throwIfGone(): void {
    if (this.#gone) throw this.#gone;
  }

  #reportPosted(): void {
    for (const ts of this.messageTs) {
      if (this.#reported.has(ts)) continue;
      this.#reported.add(ts);
      this.#options.onPosted?.(ts);
    }
  }

  #overflow(rest: string): Overflow {
    this.#options.logger.debug({ channel: this.#options.target.channel }, 'Slack message full or closed; continuing in a new one');
    this.#overflowed = true;
    return { rest };
  }

  /** Acts on a part's outcome: a stop cancels the reply, a deletion ends it, an overflow goes back to the core. */
  #settle(part: ReplyPart, outcome: PartOutcome): Overflow | undefined {
    if (outcome.status === 'ok') return undefined;
    if (outcome.status === 'gone') {
      this.#deleted.add(part.ts);
      this.#gone ??= new MessageGoneError(part.ts);
      throw this.#gone;
    }
    if (outcome.status === 'stopped') {
      this.#stopped = true;
      this.#options.onStoppedByUser?.();
      return undefined;
    }
    return this.#overflow(outcome.rest);
  }

  async #closeHeld(blocks: readonly AnswerBlock[]): Promise<void> {
    const held = this.#lastClose;
    this.#lastClose = undefined;
    if (!held || this.#stopped || this.#gone) return;
    const message = this.#messages.get(held.handle)!;
    const part = message.parts.at(-1);
    if (part) await this.#finishWithSources(message, await part.finish(held.text, blocks), blocks);
  }

  /**
   * The reply's last call: what the last message did not take goes on below it, with the sources and feedback
   * buttons. A continuation of blocks only that Slack still refuses gives them up rather than trying forever, and
   * feedback buttons alone are not worth a message of their own.
   */
  async #finishWithSources(message: SlackMessage, outcome: PartOutcome, blocks: readonly AnswerBlock[]): Promise<void> {
    const part = message.parts.at(-1)!;
    if (outcome.status !== 'overflow') {
      this.#settle(part, outcome);
      return;
    }
    const sourcesOnly = outcome.rest.trim() === '';
    if (sourcesOnly && blocks.every(isFeedbackBlock)) return;
    this.#options.logger.debug({ ts: part.ts }, 'Slack message full or closed; continuing in a new one');
    let untaken = sourcesOnly ? 'Sources:' : outcome.rest;
    while (untaken !== '') untaken = await this.#post(untaken, message);
    this.#lastKind = 'message';
    await this.#finishWithSources(message, await message.parts.at(-1)!.finish('', blocks), sourcesOnly ? [] : blocks);
  }

  /**
   * Starts a message with `text` (posted now or held, see MessagePart) as part of `message`; returns what Slack did
   * not take, having found it too long.
   */
  async #post(text: string, message: SlackMessage, controls: readonly AnswerBlock[] = []): Promise<string> {
    try {
      message.parts.push(await MessagePart.open(this.#options.api, this.#options.target, text, controls));
      return '';
    } catch (error) {
      if (slackErrorCode(error) !== 'msg_too_long' || text.length < 2) throw error;
      const { head, rest } = splitHead(text, Math.floor(text.length / 2));
      return (await this.#post(head, message, controls)) + rest;
    }
  }
}
