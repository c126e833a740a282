import type { Store } from '../store/store.ts';
import { ChannelConversations } from './channel-conversations.ts';
import { newestWithin, type Exchange } from './context-budget.ts';
import { conversationId } from './conversation-key.ts';
import type { ConversationLocks } from './conversation-lock.ts';
import type { ConversationKey } from './types.ts';

interface StoredHistory {
  v: 1;
  exchanges: Exchange[];
}

export interface HistoryOptions {
  ttlMs: number;
  budgetTokens: number;
  /** Guards each channel's list of its threads and chains. */
  locks: ConversationLocks;
  now?: () => number;
}

/**
 * Each conversation's exchanges in the store, one value per conversation, expiring `ttlMs` after the
 * last write. Callers hold the conversation's lock while they load, answer and save.
 */
export class ConversationHistory {
  readonly #store: Store;
  readonly #ttlMs: number;
  readonly #budgetTokens: number;
  readonly #channels: ChannelConversations;
  readonly #now: () => number;

  constructor(store: Store, options: HistoryOptions) {
    this.#store = store;
    this.#ttlMs = options.ttlMs;
    this.#budgetTokens = options.budgetTokens;
    this.#channels = new ChannelConversations(store, options.locks, options.ttlMs);
    this.#now = options.now ?? Date.now;
  }

  async load(key: ConversationKey): Promise<Exchange[]> {
    const stored = await this.#store.get<StoredHistory>(historyKey(key));
    return stored?.v === 1 ? stored.exchanges : [];
  }

  /** Saves the whole history; what could no longer fit the context budget is not kept. */
  async save(key: ConversationKey, exchanges: readonly Exchange[]): Promise<void> {
    const value: StoredHistory = { v: 1, exchanges: newestWithin(exchanges, this.#budgetTokens) };
    await this.#store.set(historyKey(key), value, this.#ttlMs);
    await this.#channels.note(key, this.#now());
  }

  /** Drops the exchanges started by the platform message `messageId`; false when there were none. */
  async forget(key: ConversationKey, messageId: string): Promise<boolean> {
    const exchanges = await this.load(key);
    const kept = exchanges.filter((exchange) => exchange.messageId !== messageId);
    if (kept.length === exchanges.length) return false;
    await this.save(key, kept);
    return true;
  }

  /**
   * Forgets a conversation; a channel's (a key without `threadId`) with every thread and reply chain in it.
   * True when there was anything to forget.
   */
  async reset(key: ConversationKey): Promise<boolean> {
    const threads = key.threadId === undefined ? await this.#channels.take(key) : [];
    const keys = [key, ...threads.map((threadId) => ({ ...key, threadId }))];
    const deleted = await Promise.all(keys.map((k) => this.#store.delete(historyKey(k))));
    return deleted.includes(true);
  }
}

function historyKey(key: ConversationKey): string {
  return `history:${conversationId(key)}`;
}
