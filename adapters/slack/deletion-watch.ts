/**
 * Answers in progress hear of messages deleted where they are written: their question, or a message of their own.
 * Slack says so with a `message` event of subtype `message_deleted` (`deleted_ts`), or — for a thread parent that
 * has replies, such as a mention Herald answers in its thread — `message_changed` turning it into a tombstone.
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

interface Watcher {
  channel: string;
  onDeleted(ts: string): void;
}

export class DeletionWatch {
  readonly #watchers = new Set<Watcher>();

  /** Calls `onDeleted` with the ts of every message deleted in `channel` until the returned function is called. */
  watch(channel: string, onDeleted: (ts: string) => void): () => void {
    const watcher: Watcher = { channel, onDeleted };
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  /** Any `message` event; those that delete a message are passed on. */
  observe(event: DeletionEvent): void {
    const ts = deletedTs(event);
    if (ts === undefined || event.channel === undefined) return;
    for (const watcher of [...this.#watchers]) if (watcher.channel === event.channel) watcher.onDeleted(ts);
  }
}
