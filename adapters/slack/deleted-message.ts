/**
 * Slack tells of a deleted message with a `message` event of subtype `message_deleted` (`deleted_ts`), or — for a
 * thread parent that has replies, such as a mention Herald answers in its thread — with `message_changed` turning it
 * into a tombstone.
 */

/** The fields of a `message` event that tell of a deletion. */
export interface DeletionEvent {
  subtype?: string;
  channel?: string;
  deleted_ts?: string;
  message?: { subtype?: string; ts?: string };
}

/** The message a deletion event removed, if it is one. */
export function deletedTs(event: DeletionEvent): string | undefined {
  if (event.subtype === 'message_deleted') return event.deleted_ts;
  if (event.subtype === 'message_changed' && event.message?.subtype === 'tombstone') return event.message.ts;
  return undefined;
}
