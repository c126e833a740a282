import type { Store } from '../store/store.ts';
import { newestWithin, type Exchange } from './context-budget.ts';
import { conversationId } from './conversation-key.ts';
import type { ConversationKey } from './types.ts';

interface StoredHistory {
  v: 1;
  exchanges: Exchange[];
}

/**
 * Each conversation's exchanges in the store, one value per conversation, expiring `ttlMs` after the
 * last write. Callers hold the conversation's lock while they load, answer and save.
 */
export class ConversationHistory {
  readonly #store: Store;
  readonly #ttlMs: number;
  readonly #budgetTokens: number;

  constructor(store: Store, options: { ttlMs: number; budgetTokens: number }) {
    this.#store = store;
    this.#ttlMs = options.ttlMs;
    this.#budgetTokens = options.budgetTokens;
  }

  async load(key: ConversationKey): Promise<Exchange[]> {
    const stored = await this.#store.get<StoredHistory>(historyKey(key));
    return stored?.v === 1 ? stored.exchanges : [];
  }

  /** Saves the whole history; what could no longer fit the context budget is not kept. */
  async save(key: ConversationKey, exchanges: readonly Exchange[]): Promise<void> {
    const value: StoredHistory = { v: 1, exchanges: newestWithin(exchanges, this.#budgetTokens) };
    await this.#store.set(historyKey(key), value, this.#ttlMs);
  }

  /** Drops the exchanges started by the platform message `messageId`; false when there were none. */
  async forget(key: ConversationKey, messageId: string): Promise<boolean> {
    const exchanges = await this.load(key);
    const kept = exchanges.filter((exchange) => exchange.messageId !== messageId);
    if (kept.length === exchanges.length) return false;
    await this.save(key, kept);
    return true;
  }

  async reset(key: ConversationKey): Promise<boolean> {
    return this.#store.delete(historyKey(key));
  }
}

function historyKey(key: ConversationKey): string {
  return `history:${conversationId(key)}`;
}
