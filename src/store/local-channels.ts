import type { MessageListener, Unsubscribe } from './store.ts';

/** Publish/subscribe within this process: the whole of it for a store that one instance uses. */
export class LocalChannels {
  readonly #listeners = new Map<string, Set<MessageListener>>();

  publish(channel: string, message: string): void {
    for (const listener of this.#listeners.get(channel) ?? []) {
      // Delivered after the publisher's turn, as a message from another instance would be.
      queueMicrotask(() => listener(message));
    }
  }

  subscribe(channel: string, listener: MessageListener): Unsubscribe {
    const listeners = this.#listeners.get(channel) ?? new Set();
    this.#listeners.set(channel, listeners);
    const own = (message: string) => listener(message);
    listeners.add(own);
    return async () => {
      listeners.delete(own);
      if (listeners.size === 0) this.#listeners.delete(channel);
    };
  }
}
