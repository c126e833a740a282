import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';
import { StoreBroadcast } from '../store/store-broadcast.ts';

/**
 * Stop presses, wherever the platform delivers them: the answers being written here are stopped at once, and a press
 * for an answer written elsewhere is published through the store to every instance, so the one writing it stops it.
 */
export class StopPresses {
  readonly #broadcast: StoreBroadcast;
  readonly #logger: Logger;
  /** The Stop of each answer being written here, by question key. */
  readonly #writing = new Map<string, AbortController>();

  constructor(store: Store, platform: string, logger: Logger) {
    this.#broadcast = new StoreBroadcast(
      store,
      `controls:${platform}`,
      (message) => this.#heard(message),
      logger,
      'listening for presses on other instances failed; Stop works only where pressed',
    );
    this.#logger = logger;
  }

  /**
   * Listens for presses that other instances received, once; an answer registers only after this settles. A store
   * that cannot subscribe leaves Stop working where the answer is written.
   */
  listen(): Promise<void> {
    return this.#broadcast.listen();
  }

  /** An answer written here until the returned function is called; `stop` aborts when its Stop is pressed anywhere. */
  writing(questionKey: string, stop: AbortController): () => void {
    this.#writing.set(questionKey, stop);
    return () => {
      if (this.#writing.get(questionKey) === stop) this.#writing.delete(questionKey);
    };
  }

  /** Stops the answer to `questionKey` here, or wherever it is written. */
  async stop(questionKey: string): Promise<void> {
    const here = this.#writing.get(questionKey);
    if (here) here.abort();
    else await this.#broadcast.publish({ stop: questionKey });
    this.#logger.info({ question: questionKey, here: here !== undefined }, 'answer stopped by a press');
  }

  #heard(message: string): void {
    let questionKey: unknown;
    try {
      questionKey = (JSON.parse(message) as { stop?: unknown }).stop;
    } catch {
      questionKey = undefined;
    }
    if (typeof questionKey === 'string') this.#writing.get(questionKey)?.abort();
  }
}
