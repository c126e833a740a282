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
    const indexKey = channelIndexKey(key);
    // The index lives twice the history's TTL and is rewritten once its entry is half a TTL old, so it always
    // outlives every history it lists while most saves only read it.
    const seen = (await this.#store.get<StoredIndex>(indexKey))?.threads[threadId];
    if (seen !== undefined && now - seen < this.#ttlMs / 2) return;
    await this.#update(indexKey, (threads) => {
      for (const [id, at] of Object.entries(threads)) if (now - at > this.#ttlMs) delete threads[id];
      threads[threadId] = now;
      return threads;
    });
  }

  /** The threads listed for the key's channel, which stop being listed. */
  async take(channel: ConversationKey): Promise<string[]> {
    let taken: string[] = [];
    await this.#update(channelIndexKey(channel), (threads) => {
      taken = Object.keys(threads);
      return undefined;
    });
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

function channelIndexKey(key: ConversationKey): string {
  return `channel-conversations:${conversationId({ ...key, threadId: undefined })}`;
}
