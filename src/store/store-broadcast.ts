import type { Logger } from '../log/logger.ts';
import type { Store } from './store.ts';

/**
 * JSON messages between instances on one store channel. It subscribes on first need; a store that cannot subscribe
 * is logged with `failure` and tried again at the next need, each instance meanwhile hearing only itself.
 */
export class StoreBroadcast {
  readonly #store: Store;
  readonly #channel: string;
  readonly #onMessage: (message: string) => void;
  readonly #logger: Logger;
  readonly #failure: string;
  #listening: Promise<void> | undefined;

  constructor(store: Store, channel: string, onMessage: (message: string) => void, logger: Logger, failure: string) {
    this.#store = store;
    this.#channel = channel;
    this.#onMessage = onMessage;
    this.#logger = logger;
    this.#failure = failure;
  }

  /** Settles once this instance hears the channel, or once subscribing failed. */
  listen(): Promise<void> {
    this.#listening ??= this.#store
      .subscribe(this.#channel, (message) => this.#onMessage(message))
      .then(
        () => undefined,
        (error: unknown) => {
          this.#listening = undefined;
          this.#logger.warn({ err: error }, this.#failure);
        },
      );
    return this.#listening;
  }

  publish(message: object): Promise<void> {
    return this.#store.publish(this.#channel, JSON.stringify(message));
  }
}
