import type { ReplyEvent, ReplyStream } from './types.ts';

/** How long after a message an edit of it is still answered again. */
export const EDIT_WINDOW_MS = 10 * 60_000;

/**
 * Reads a reply given `replaces` up to the engine's decision. Returns the rest of the reply when the edit replaced
 * the old exchange (take the old answer down, then show this one), or undefined when it did not (the stream has been
 * read to its end; leave everything as it is).
 */
export async function replacingReply(stream: ReplyStream): Promise<ReplyStream | undefined> {
  const events = stream[Symbol.asyncIterator]();
  const first = await events.next();
  const decision = first.done ? undefined : first.value;
  if (isReplaced(decision)) return { [Symbol.asyncIterator]: () => events };
  while (!(await events.next()).done);
  return undefined;
}

function isReplaced(event: ReplyEvent | undefined): boolean {
  return event?.type === 'replacement' && event.replaced;
}
