import type { HistoryRange, HistoryRead } from './workspace-history.ts';

/** Reads kept at most, whatever their channels: the oldest one goes first. */
const MAX_READS = 64;

interface CachedRead {
  read: HistoryRead;
  expiresAt: number;
}

/**
 * Channel reads reused for a short while, per channel and range, so that a question's follow-ups and the summaries
 * of the same range do not fetch the history again. A deleted or edited message drops every read holding it.
 * Permissions are not cached: the adapters check them before every read.
 */
export class HistoryCache {
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #reads = new Map<string, CachedRead>();

  constructor(options: { ttlMs: number; now?: () => number }) {
    this.#ttlMs = options.ttlMs;
    this.#now = options.now ?? Date.now;
  }

  get(range: HistoryRange): HistoryRead | undefined {
    const key = keyOf(range);
    const cached = this.#reads.get(key);
    if (!cached) return undefined;
    if (cached.expiresAt <= this.#now()) {
      this.#reads.delete(key);
      return undefined;
    }
    return cached.read;
  }

  set(range: HistoryRange, read: HistoryRead): void {
    const key = keyOf(range);
    this.#reads.delete(key);
    this.#reads.set(key, { read, expiresAt: this.#now() + this.#ttlMs });
    while (this.#reads.size > MAX_READS) this.#reads.delete(this.#reads.keys().next().value!);
  }

  /** A message was deleted or edited: no read holding it is reused (ids are the platform's: unique enough, and a rare extra eviction costs only a fetch). */
  forget(messageId: string): void {
    for (const [key, cached] of this.#reads) if (cached.read.messages.some((m) => m.id === messageId)) this.#reads.delete(key);
  }
}

function keyOf(range: HistoryRange): string {
  return [range.channelId, range.threadId ?? '', range.since ?? '', range.fromId ?? '', range.limit].join('|');
}
