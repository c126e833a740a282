import type { ReplyEvent, ReplyStream } from './types.ts';

/**
 * The engine pushes events as they happen; one consumer iterates them. The engine never waits for the
 * consumer (events queue up), and a consumer that stops iterating early cancels the reply.
 */
export class ReplyChannel implements ReplyStream {
  readonly #queue: ReplyEvent[] = [];
  readonly #onCancel: () => void;
  #waiter: ((result: IteratorResult<ReplyEvent>) => void) | undefined;
  #ended = false;
  #iterated = false;

  constructor(onCancel: () => void) {
    this.#onCancel = onCancel;
  }

  push(event: ReplyEvent): void {
    if (this.#ended) return;
    const waiter = this.#waiter;
    if (waiter) {
      this.#waiter = undefined;
      waiter({ value: event, done: false });
    } else this.#queue.push(event);
  }

  /** No more events after the queued ones. */
  end(): void {
    this.#ended = true;
    const waiter = this.#waiter;
    if (waiter && this.#queue.length === 0) {
      this.#waiter = undefined;
      waiter({ value: undefined, done: true });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<ReplyEvent> {
    if (this.#iterated) throw new Error('a reply stream can be iterated only once');
    this.#iterated = true;
    return {
      next: () => {
        const event = this.#queue.shift();
        if (event) return Promise.resolve({ value: event, done: false });
        if (this.#ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.#waiter = resolve;
        });
      },
      return: () => {
        if (!this.#ended) this.#onCancel();
        this.#ended = true;
        this.#queue.length = 0;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
