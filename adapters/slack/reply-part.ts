import type { AnswerBlock } from './answer-controls.ts';

/** Where a reply goes: a conversation and, for a thread reply, its root. */
export interface ReplyTarget {
  channel: string;
  threadTs?: string;
  /** Who the answer is for; native streaming needs it (and a thread). */
  recipient?: { userId: string; teamId: string };
}

/**
 * What became of text handed to a part: taken; refused because the user pressed stop; refused because the message
 * was deleted; or not taken (the message is full or no longer accepts writes), so `rest` must continue in a new
 * message.
 */
export type PartOutcome = { status: 'ok' } | { status: 'stopped' } | { status: 'gone' } | { status: 'overflow'; rest: string };

/** What Slack answers a write to a message that was deleted (chat.update, chat.appendStream, chat.stopStream). */
export const GONE_ERRORS = new Set(['message_not_found', 'cant_update_message']);

/** One Slack message of a reply, grown by appending. */
export interface ReplyPart {
  readonly kind: 'stream' | 'message';
  readonly ts: string;
  append(delta: string): Promise<PartOutcome>;
  /** Adds the last text and the blocks that go under it, and leaves the message final. */
  finish(delta: string, blocks: readonly AnswerBlock[]): Promise<PartOutcome>;
}

export const OK: PartOutcome = { status: 'ok' };
