/**
 * Questions Herald answered, for as long as an edit of one can replace its answer: where the answer's messages
 * are (in the store, EDIT_WINDOW_MS), and the reply still being written for it here.
 */
import { EDIT_WINDOW_MS } from '../../src/conversation/replacement.ts';
import type { Store } from '../../src/store/store.ts';

function key(channel: string, ts: string): string {
  return `slack:answered:${channel}:${ts}`;
}

export class AnsweredQuestions {
  readonly #store: Store;
  readonly #replying = new Map<string, Promise<void>>();

  constructor(store: Store) {
    this.#store = store;
  }

  /** The ts of Herald's messages answering the question; undefined when Herald did not answer it (lately). */
  messagesOf(channel: string, ts: string): Promise<string[] | undefined> {
    return this.#store.get<string[]>(key(channel, ts));
  }

  remember(channel: string, ts: string, messageTs: readonly string[]): Promise<void> {
    return this.#store.set(key(channel, ts), messageTs, EDIT_WINDOW_MS);
  }

  /** Keeps `reply` as the one being written for the question until it settles. */
  track(channel: string, ts: string, reply: Promise<void>): void {
    const id = key(channel, ts);
    this.#replying.set(id, reply);
    const forget = () => {
      if (this.#replying.get(id) === reply) this.#replying.delete(id);
    };
    reply.then(forget, forget);
  }

  /** The reply being written here for the question, if any. */
  replying(channel: string, ts: string): Promise<void> | undefined {
    return this.#replying.get(key(channel, ts));
  }
}
