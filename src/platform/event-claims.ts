import type { Logger } from '../log/logger.ts';
import { DeadlineStore } from '../store/deadline-store.ts';
import type { Store } from '../store/store.ts';

/** Longer than Slack's retry schedule (at once, then about 1 and 5 minutes; at worst within an hour). */
const CLAIM_TTL_MS = 2 * 60 * 60_000;
/** A claim waits this long for the store before this process decides on its own. */
const STORE_DEADLINE_MS = 2000;
const MAX_LOCAL_CLAIMS = 50_000;

/**
 * One answer per event, however often and wherever a platform delivers it (gateway resumes, Slack's retries,
 * several instances on one store). The store decides across instances; this process also remembers what it
 * claimed, so a delivery repeated here is dropped even while the store is down or slow.
 */
export class EventClaims {
  readonly #store: Store;
  readonly #logger: Logger;
  /** Claimed here: key → when the claim lapses. Insertion order is age order. */
  readonly #local = new Map<string, number>();

  constructor(store: Store, logger: Logger) {
    this.#store = new DeadlineStore(store, { timeoutMs: STORE_DEADLINE_MS });
    this.#logger = logger;
  }

  /** True for the first delivery of `key`; false for every later one. */
  async claim(key: string): Promise<boolean> {
    const now = Date.now();
    this.#expire(now);
    if ((this.#local.get(key) ?? 0) > now) return false;
    this.#local.set(key, now + CLAIM_TTL_MS);
    if (this.#local.size > MAX_LOCAL_CLAIMS) this.#local.delete(this.#local.keys().next().value!);
    try {
      return await this.#store.setIfAbsent(`claim:${key}`, String(process.pid), CLAIM_TTL_MS);
    } catch (error) {
      this.#logger.warn({ err: error, key }, 'event claim store unavailable; deciding in this process');
      return true;
    }
  }

  #expire(now: number): void {
    for (const [key, until] of this.#local) {
      if (until > now) break;
      this.#local.delete(key);
    }
  }
}
