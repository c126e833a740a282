export type PrefetchEnd =
  | { status: 'complete' }
  | { status: 'cancelled' }
  /** `received`: items that arrived before the failure. */
  | { status: 'failed'; error: unknown; received: number };

export interface Prefetched<T> {
  /** The source's items in order; ends early (without throwing) when the source fails or is cancelled. */
  chunks: AsyncIterable<T>;
  /** How reading the source ended. */
  ended: Promise<PrefetchEnd>;
  /** Stops reading the source (its signal aborts) and ends `chunks`. */
  cancel(): void;
}

/**
 * Reads a source as fast as it yields and holds the items until the consumer asks for them, so a
 * streamed service response finishes at the service's pace instead of being throttled by real-time
 * playback, and its failure is known at once. A consumer that stops early cancels the source.
 */
export function prefetch<T>(open: (signal: AbortSignal) => AsyncIterable<T>): Prefetched<T> {
  const controller = new AbortController();
  const queue: T[] = [];
  let head = 0;
  let received = 0;
  let finished = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };

  const ended = (async (): Promise<PrefetchEnd> => {
    try {
      for await (const item of open(controller.signal)) {
        if (controller.signal.aborted) break;
        queue.push(item);
        received++;
        notify();
      }
      return controller.signal.aborted ? { status: 'cancelled' } : { status: 'complete' };
    } catch (error) {
      return controller.signal.aborted ? { status: 'cancelled' } : { status: 'failed', error, received };
    } finally {
      finished = true;
      notify();
    }
  })();

  async function* chunks(): AsyncGenerator<T, void, undefined> {
    try {
      for (;;) {
        if (controller.signal.aborted) return;
        if (head < queue.length) {
          const item = queue[head]!;
          queue[head++] = undefined as T; // let the chunk be collected once handed over
          if (head === queue.length) queue.length = head = 0;
          yield item;
        } else if (finished) {
          return;
        } else {
          await new Promise<void>((resolve) => (wake = resolve));
        }
      }
    } finally {
      controller.abort();
    }
  }

  return {
    chunks: chunks(),
    ended,
    cancel() {
      controller.abort();
      notify();
    },
  };
}
