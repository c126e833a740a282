import { HeraldError } from '../errors.ts';

/**
 * A message took only part of the text it was given: it is full (a platform whose real limit depends on more than
 * the text, such as Slack's blocks, finds out only by trying) or no longer takes writes. `rest` — what did not land —
 * goes on in the next message.
 */
export interface Overflow {
  rest: string;
}

/**
 * What a platform offers to show a growing answer. Adapters implement it; the core's StreamingReply drives it, one
 * call at a time, merging text that arrives meanwhile and splitting at the platform's limit.
 * - `edit` surfaces post a message and replace its whole text as the answer grows (Discord, Slack's chat.update).
 * - `append` surfaces only ever add text (Slack's native streams, and its posted-and-edited messages behind them).
 */
export interface ReplySurface {
  readonly mode: 'edit' | 'append';
  /** Longest text one message may hold on this platform. */
  readonly maxLength: number;
  /** Starts a new message showing `text`; returns its handle. */
  open(text: string): Promise<string>;
  /** Edit mode: `text` is the whole message. Append mode: `text` is what to add. */
  update(handle: string, text: string): Promise<Overflow | void>;
  /**
   * Ends the message; edit mode passes its complete final text, append mode what is left to add. `last` marks the
   * reply's last message (a surface may hold it for what goes under the answer).
   */
  close(handle: string, text: string, options?: { last?: boolean }): Promise<Overflow | void>;
  /** How long to wait before the next call of this kind, from the platform's rate-limit state. */
  delayMs(kind: 'open' | 'update'): number;
}

/**
 * Thrown by a surface when the platform says a message of the reply no longer exists (someone deleted it). The
 * renderer stops the reply on it instead of reporting a failure: nobody is left to read the rest.
 */
export class MessageGoneError extends HeraldError {
  /** The surface's handle of the deleted message, when known. */
  readonly handle: string | undefined;

  constructor(handle?: string, options?: { cause?: unknown }) {
    super('The message was deleted.', { code: 'message_gone', kind: 'gone', cause: options?.cause });
    this.handle = handle;
  }
}
