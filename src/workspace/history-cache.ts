import type { HistoryRange, HistoryRead } from './workspace-history.ts';

/** Reads, and messages over all reads, kept at most: the oldest read goes first. */
const MAX_READS = 64;
const MAX_MESSAGES = 10_000;

interface CachedRead {
  range: HistoryRange;
  read: HistoryRead;
  expiresAt: number;
}

/**
 * Channel reads reused for a short while, per channel and range, so that the searches of one answer and the summaries
 * of the same range do not fetch the history again. A deleted or edited message drops every read holding it, and a new
 * message (not Herald's own: its answers are no sources) every read of its channel or thread.
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
    this.#reads.set(key, { range, read, expiresAt: this.#now() + this.#ttlMs });
    let total = 0;
    for (const cached of this.#reads.values()) total += cached.read.messages.length;
    for (const [oldest, cached] of this.#reads) {
      if (this.#reads.size <= MAX_READS && total <= MAX_MESSAGES) break;
      this.#reads.delete(oldest);
      total -= cached.read.messages.length;
    }
  }

  /** Someone wrote in the channel or thread `id`: its reads no longer hold its newest messages. */
  forgetChannel(id: string): void {
    for (const [key, cached] of this.#reads) if (cached.range.channelId === id || cached.range.threadId === id) this.#reads.delete(key);
  }

  /** A message was deleted or edited: no read holding it is reused (ids are the platform's: unique enough, and a rare extra eviction costs only a fetch). */
  forget(messageId: string): void {
    for (const [key, cached] of this.#reads) if (cached.read.messages.some((m) => m.id === messageId)) this.#reads.delete(key);
  }
}

function keyOf(range: HistoryRange): string {
  return [range.channelId, range.threadId ?? '', range.since ?? '', range.fromId ?? '', range.limit].join('|');
}
