import type { ReplyEvent, ReplyStream } from '../conversation/types.ts';

type ErrorEvent = Extract<ReplyEvent, { type: 'error' }>;

/** The engine's reply to a scheduled run, as it is posted: its errors held back for the creator. */
export interface ScheduledReply {
  /** The reply to post, without error events; undefined when it failed before saying anything (nothing to post). */
  stream?: ReplyStream;
  /** The first error the reply gave, once known (read it after the stream is over). */
  readonly error: ErrorEvent | undefined;
  /** Cancels the reply if it is still going (a post that gave up reading it). */
  close(): Promise<void>;
}

/** Events that show something; until one comes, a reply that fails has posted nothing. */
const SHOWN = new Set<ReplyEvent['type']>(['text', 'citations', 'attachment', 'transcript', 'notice']);

/**
 * Reads the reply up to the first thing it shows, so that one refused or failed at once (a quota, the service down)
 * posts nothing, then hands on the rest with error events taken out.
 */
export async function openScheduledReply(reply: ReplyStream): Promise<ScheduledReply> {
  const events = reply[Symbol.asyncIterator]();
  const buffered: ReplyEvent[] = [];
  let error: ErrorEvent | undefined;
  let ended = false;
  while (!ended) {
    const next = await events.next();
    if (next.done) ended = true;
    else if (next.value.type === 'error') error ??= next.value;
    else {
      buffered.push(next.value);
      if (SHOWN.has(next.value.type)) break;
      if (next.value.type === 'done') ended = true;
    }
  }
  const result: ScheduledReply = {
    get error() {
      return error;
    },
    close: async () => {
      await events.return?.();
    },
  };
  if (!buffered.some((event) => SHOWN.has(event.type))) {
    await result.close();
    return result;
  }
  result.stream = {
    [Symbol.asyncIterator]: () => ({
      async next(): Promise<IteratorResult<ReplyEvent>> {
        const held = buffered.shift();
        if (held) return { value: held, done: false };
        for (;;) {
          const next = await events.next();
          if (next.done || next.value.type !== 'error') return next;
          error ??= next.value;
        }
      },
      async return(): Promise<IteratorResult<ReplyEvent>> {
        await events.return?.();
        return { value: undefined, done: true };
      },
    }),
  };
  return result;
}
