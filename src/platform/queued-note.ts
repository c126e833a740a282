import type { ReplyEvent, ReplyStream, StatusPhase } from '../conversation/types.ts';
import type { Logger } from '../log/logger.ts';

/** How a platform shows and takes back one line of its own under a question. */
export interface NoteLine {
  /** Posts `text` (Markdown) where the answer will go; resolves to its message key. */
  post(text: string): Promise<string>;
  /** Deletes the line; one already gone is left at that. */
  remove(key: string): Promise<void>;
}

/**
 * A line under a question that waits its turn in the conversation (a reply or an approval ahead of it), so the wait
 * shows; it goes once the question is being answered. Shown at most once per answer.
 */
export class QueuedNote {
  readonly #line: NoteLine;
  readonly #logger: Logger;
  #posted: Promise<string | undefined> | undefined;
  #cleared = false;

  constructor(line: NoteLine, logger: Logger) {
    this.#line = line;
    this.#logger = logger;
  }

  /** A reply status: `queued` shows the note, anything after it takes it away. */
  async status(phase: StatusPhase, text: string): Promise<void> {
    if (phase === 'queued') this.#show(text);
    else await this.clear();
  }

  /** `stream` with the note shown while its status says it is queued; ending it ends `stream` at once. */
  around(stream: ReplyStream): ReplyStream {
    return {
      [Symbol.asyncIterator]: () => {
        const events = stream[Symbol.asyncIterator]();
        return {
          next: async (): Promise<IteratorResult<ReplyEvent>> => {
            const next = await events.next();
            if (!next.done && next.value.type === 'status') await this.status(next.value.phase, next.value.text);
            else await this.clear();
            return next;
          },
          return: async (): Promise<IteratorResult<ReplyEvent>> => {
            await events.return?.();
            return { value: undefined, done: true };
          },
        };
      },
    };
  }

  async clear(): Promise<void> {
    this.#cleared = true;
    const key = await this.#posted;
    this.#posted = undefined;
    if (key === undefined) return;
    await this.#line.remove(key).catch((error: unknown) => this.#logger.warn({ err: error }, 'a queued note could not be removed'));
  }

  #show(text: string): void {
    if (this.#posted || this.#cleared) return;
    this.#posted = this.#line.post(`⏳ _${text.charAt(0).toUpperCase()}${text.slice(1)}_`).catch((error: unknown) => {
      this.#logger.debug({ err: error }, 'a queued note could not be posted');
      return undefined;
    });
  }
}
