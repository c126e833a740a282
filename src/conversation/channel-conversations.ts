import type { Store } from '../store/store.ts';
import { conversationId } from './conversation-key.ts';
import type { ConversationLocks } from './conversation-lock.ts';
import type { ConversationKey } from './types.ts';

interface StoredIndex {
  v: 1;
  /** Thread or reply-chain id → when its history was last saved (ms since the epoch). */
  threads: Record<string, number>;
}

/**
 * Per channel, the threads and reply chains that have a history there, so that forgetting the channel forgets
 * them too: a chain is keyed by its root message, which nobody running /reset in the channel can name.
 */
export class ChannelConversations {
  readonly #store: Store;
  readonly #locks: ConversationLocks;
  readonly #ttlMs: number;

  /** `ttlMs`: the histories' own lifetime; each entry is kept at least that long after its last save. */
  constructor(store: Store, locks: ConversationLocks, ttlMs: number) {
    this.#store = store;
    this.#locks = locks;
    this.#ttlMs = ttlMs;
  }

  /** Notes that a thread's history was saved at `now`; a no-op for a channel's own conversation. */
  async note(key: ConversationKey, now: number): Promise<void> {
    const { threadId } = key;
    if (threadId === undefined) return;
    // Noted again half a TTL after it last was (the marker spares other saves from reading the index), so its history
    // ends within 1.5 TTL of its entry and the index (2 TTL) outlives it. The caller holds the thread's own lock; the
    // marker goes first so that a reset in between only makes the next save note the thread again.
    const marker = markerKey(key);
    if (await this.#store.get<boolean>(marker)) return;
    await this.#store.set(marker, true, this.#ttlMs / 2);
    try {
      await this.#update(channelIndexKey(key), (threads) => {
        for (const [id, at] of Object.entries(threads)) if (now - at > this.#ttlMs * 1.5) delete threads[id];
        threads[threadId] = now;
        return threads;
      });
    } catch (error) {
      await this.#store.delete(marker).catch(() => false);
      throw error;
    }
  }

  /** The threads listed for the key's channel, which stop being listed. */
  async take(channel: ConversationKey): Promise<string[]> {
    let taken: string[] = [];
    await this.#update(channelIndexKey(channel), (threads) => {
      taken = Object.keys(threads);
      return undefined;
    });
    await Promise.all(taken.map((threadId) => this.#store.delete(markerKey({ ...channel, threadId }))));
    return taken;
  }

  /** Read-modify-write of one channel's index under its own lock: chains of one channel are saved concurrently. */
  async #update(indexKey: string, change: (threads: Record<string, number>) => Record<string, number> | undefined): Promise<void> {
    const lease = await this.#locks.acquire(indexKey);
    try {
      const stored = await this.#store.get<StoredIndex>(indexKey);
      const threads = change(stored?.v === 1 ? { ...stored.threads } : {});
      if (threads) await this.#store.set(indexKey, { v: 1, threads } satisfies StoredIndex, this.#ttlMs * 2);
      else if (stored) await this.#store.delete(indexKey);
    } finally {
      await lease.release();
    }
  }
}

function markerKey(thread: ConversationKey): string {
  return `channel-conversations:noted:${conversationId(thread)}`;
}

function channelIndexKey(key: ConversationKey): string {
  return `channel-conversations:${conversationId({ ...key, threadId: undefined })}`;
}
