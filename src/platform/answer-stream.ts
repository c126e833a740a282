import type { ReplyEvent, ReplyStream } from '../conversation/types.ts';

type DoneEvent = Extract<ReplyEvent, { type: 'done' }>;

const END: IteratorResult<ReplyEvent> = { value: undefined, done: true };

/**
 * The engine's reply as a writer reads it: its `done` event is told to `onDone`, and once `stop` aborts, the stream
 * ends right there and the reply is cancelled, so the writer finishes what it has shown as it is, with no error line.
 */
export function stoppableReply(stream: ReplyStream, stop: AbortSignal, onDone: (event: DoneEvent) => void): ReplyStream {
  return {
    [Symbol.asyncIterator]() {
      const events = stream[Symbol.asyncIterator]();
      const stopped = new Promise<IteratorResult<ReplyEvent>>((resolve) => {
        const end = () => {
          void events.return?.();
          resolve(END);
        };
        if (stop.aborted) end();
        else stop.addEventListener('abort', end, { once: true });
      });
      return {
        async next() {
          const next = await Promise.race([events.next(), stopped]);
          if (!next.done && next.value.type === 'done') onDone(next.value);
          return next;
        },
        async return() {
          await events.return?.();
          return END;
        },
      };
    },
  };
}
