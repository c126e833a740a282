import type { PlatformState } from '../../src/platform/platform-state.ts';

/**
 * Which reply chain a message belongs to: message id → the chain's root message id, kept as long as the
 * conversation history. A chain's root is its conversation key, so replying to any message of it continues it.
 */
export class ReplyChains {
  readonly #store: PlatformState;
  readonly #ttlMs: number;

  constructor(store: PlatformState, ttlMs: number) {
    this.#store = store;
    this.#ttlMs = ttlMs;
  }

  /** The root of the chain `messageId` is part of; a message Herald never saw roots a chain of its own. */
  async rootOf(messageId: string): Promise<string> {
    return (await this.#store.get<string>(key(messageId))) ?? messageId;
  }

  remember(messageId: string, rootId: string): Promise<void> {
    return this.#store.set(key(messageId), rootId, this.#ttlMs);
  }
}

function key(messageId: string): string {
  return `discord:chain:${messageId}`;
}
