/** Threads Herald has replied in: later messages there are follow-ups it answers without a mention. */
import type { Store } from '../../src/store/store.ts';

function key(teamId: string, channel: string, threadTs: string): string {
  return `slack:thread:${teamId}:${channel}:${threadTs}`;
}

export class ThreadMemory {
  readonly #store: Store;
  readonly #ttlMs: number;

  /** `ttlMs`: as long as the conversation's history is kept; after that a mention starts afresh. */
  constructor(store: Store, ttlMs: number) {
    this.#store = store;
    this.#ttlMs = ttlMs;
  }

  remember(teamId: string, channel: string, threadTs: string): Promise<void> {
    return this.#store.set(key(teamId, channel, threadTs), 1, this.#ttlMs);
  }

  async has(teamId: string, channel: string, threadTs: string): Promise<boolean> {
    return (await this.#store.get(key(teamId, channel, threadTs))) !== undefined;
  }
}
