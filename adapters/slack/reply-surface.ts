/**
 * The core's ReplySurface over Slack, in append mode: each message of a reply is streamed natively where Slack
 * allows it and otherwise posted and edited (MessagePart). Whatever a message cannot take — Slack says it is too
 * long, or the stream has aged out — continues in a new message in the same place, so no text is lost.
 *
 * Calls to Slack run one after another on a queue of their own and the surface's methods return at once, so the
 * renderer never waits on the network while text keeps arriving; appends that pile up behind a slow call go out
 * as one. The last close of a reply is held until `finish(blocks)`, so the sources go into that final call.
 * Once Slack says a message of the reply was deleted, nothing more is sent and the next call throws MessageGoneError.
 */
import type { Logger } from '../../src/log/logger.ts';
import { splitHead } from '../../src/streaming/markdown-split.ts';
import { MessageGoneError, type ReplySurface } from '../../src/streaming/surface.ts';
import type { ContextBlock } from './citation-blocks.ts';
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
  maxLength?: number;
}

/** Text waiting for the queue to reach it. */
interface Pending {
  handle: string;
  text: string;
  started: boolean;
}

export class SlackReplySurface implements ReplySurface {
  readonly mode = 'append';
  readonly maxLength: number;
  readonly #options: SlackSurfaceOptions;
  readonly #messages = new Map<string, ReplyPart[]>();
  #queue: Promise<void> = Promise.resolve();
  #failure: unknown;
  #append: Pending | undefined;
  #lastClose: { handle: string; text: string } | undefined;
  #lastKind: ReplyPart['kind'] = 'stream';
  #stopped = false;
  #gone: MessageGoneError | undefined;
  /** Messages of the reply someone deleted. */
  readonly #deleted = new Set<string>();
  /** Messages already reported to onPosted. */
  readonly #reported = new Set<string>();
  #abandoned = false;

  constructor(options: SlackSurfaceOptions) {
    this.#options = options;
    this.maxLength = options.maxLength ?? SLACK_MAX_LENGTH;
  }

  /** Timestamps of every Slack message the reply used so far, in order. */
  get messageTs(): string[] {
    return [...this.#messages.values()]
      .flat()
      .map((p) => p.ts)
      .filter((ts) => ts !== '');
  }

  /** Whether any message was started (its Slack call may still be on the way). */
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
    this.#messages.set(handle, []);
    this.#enqueue(async () => {
      await this.#closeHeld([]);
      const parts = this.#messages.get(handle)!;
      const { api, target, streaming, logger } = this.#options;
      const stream = await StreamPart.start(api, target, text, streaming, logger);
      if (stream) parts.push(stream);
      else parts.push(...(await this.#post(text)));
      this.#lastKind = parts.at(-1)!.kind;
    });
    return handle;
  }

  async update(handle: string, text: string): Promise<void> {
    this.#throwIfGone();
    if (this.#append && !this.#append.started && this.#append.handle === handle) {
      this.#append.text += text;
      return;
    }
    const pending: Pending = { handle, text, started: false };
    this.#append = pending;
    this.#enqueue(async () => {
      pending.started = true;
      const parts = this.#messages.get(handle)!;
      const part = parts.at(-1);
      if (part) await this.#settle(parts, await part.append(pending.text), []);
    });
  }

  async close(handle: string, text: string): Promise<void> {
    this.#throwIfGone();
    this.#enqueue(async () => {
      await this.#closeHeld([]);
      this.#lastClose = { handle, text };
    });
  }

  delayMs(kind: 'open' | 'update'): number {
    const { budget } = this.#options.api;
    if (kind === 'open') return 0;
    if (this.#lastKind === 'stream') return Math.max(STREAM_GAP_MS, budget.waitMs('chat.appendStream'));
    const last = [...this.#messages.values()].at(-1)?.at(-1);
    // A held message asks for its reservation again each gap; a shown one waits for a free progress edit.
    if (!(last instanceof MessagePart) || last.held) return EDIT_GAP_MS;
    return Math.min(MAX_EDIT_WAIT_MS, Math.max(EDIT_GAP_MS, budget.waitMs('chat.update', undefined, PROGRESS_EDIT_KEEP)));
  }

  /** Ends the reply: the last message gets its remaining text and `blocks` (the sources) in one call. */
  async finish(blocks: readonly ContextBlock[]): Promise<void> {
    try {
      await this.#queue;
      if (this.#failure) throw this.#failure;
      if (this.#stopped || this.#gone) return;
      if (this.#lastClose) await this.#closeHeld(blocks);
      else if (blocks.length > 0) {
        const parts = [...this.#messages.values()].at(-1);
        const last = parts?.at(-1);
        if (parts && last) await this.#settle(parts, await last.finish('', blocks), blocks);
      }
    } finally {
      this.#reportPosted();
      this.#release();
    }
  }

  /**
   * Sends nothing more (a call under way is let finish) but the stop of a stream still open, so it does not go on
   * showing as being written; gives back what was reserved for the reply.
   */
  async abandon(): Promise<void> {
    this.#abandoned = true;
    await this.#queue;
    this.#release();
    for (const part of [...this.#messages.values()].flat()) {
      if (part instanceof StreamPart && part.streaming && !this.#deleted.has(part.ts)) await part.finish('', []);
    }
  }

  /** Gives back the reservations of final edits that will not be made. */
  #release(): void {
    for (const part of [...this.#messages.values()].flat()) if (part instanceof MessagePart) part.release();
  }

  #throwIfGone(): void {
    if (this.#gone) throw this.#gone;
  }

  /** Runs Slack calls in order; after a failure, a stop or a deletion, the rest of the reply is not sent. */
  #enqueue(step: () => Promise<void>): void {
    this.#queue = this.#queue.then(async () => {
      if (this.#failure !== undefined || this.#stopped || this.#gone || this.#abandoned) return;
      try {
        await step();
      } catch (error) {
        this.#failure = error;
      } finally {
        this.#reportPosted();
      }
    });
  }

  #reportPosted(): void {
    for (const ts of this.messageTs) {
      if (this.#reported.has(ts)) continue;
      this.#reported.add(ts);
      this.#options.onPosted?.(ts);
    }
  }

  async #closeHeld(blocks: readonly ContextBlock[]): Promise<void> {
    const held = this.#lastClose;
    this.#lastClose = undefined;
    if (!held || this.#stopped || this.#gone) return;
    const parts = this.#messages.get(held.handle)!;
    const part = parts.at(-1);
    if (part) await this.#settle(parts, await part.finish(held.text, blocks), blocks);
  }

  /** Acts on a part's outcome: a stop cancels the reply, a deletion ends it, an overflow continues in a new message. */
  async #settle(parts: ReplyPart[], outcome: PartOutcome, blocks: readonly ContextBlock[]): Promise<void> {
    if (outcome.status === 'ok') return;
    if (outcome.status === 'gone') {
      const ts = parts.at(-1)!.ts;
      this.#deleted.add(ts);
      this.#gone ??= new MessageGoneError(ts);
      return;
    }
    if (outcome.status === 'stopped') {
      this.#stopped = true;
      this.#options.onStoppedByUser?.();
      return;
    }
    this.#options.logger.debug({ ts: parts.at(-1)?.ts }, 'Slack message full or closed; continuing in a new one');
    const sourcesOnly = outcome.rest.trim() === '';
    if (sourcesOnly && blocks.length === 0) return;
    const next = await this.#post(sourcesOnly ? 'Sources:' : outcome.rest);
    parts.push(...next);
    this.#lastKind = 'message';
    // A sources-only continuation that Slack still refuses gives up the sources rather than trying forever.
    if (blocks.length > 0) await this.#settle(parts, await next.at(-1)!.finish('', blocks), sourcesOnly ? [] : blocks);
  }

  /** Starts a message with `text` (posted now or held, see MessagePart), in several if Slack finds it too long for one. */
  async #post(text: string): Promise<MessagePart[]> {
    try {
      return [await MessagePart.open(this.#options.api, this.#options.target, text)];
    } catch (error) {
      if (slackErrorCode(error) !== 'msg_too_long' || text.length < 2) throw error;
      const { head, rest } = splitHead(text, Math.floor(text.length / 2));
      return [...(await this.#post(head)), ...(await this.#post(rest))];
    }
  }
}
