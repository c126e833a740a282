import { randomUUID } from 'node:crypto';
import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';

/** How often an instance renews the heartbeats of its replies and looks for expired ones. */
const BEAT_MS = 2000;
/** A heartbeat this old belongs to a reply its instance no longer writes (four beats missed). */
export const HEARTBEAT_EXPIRY_MS = 8000;
/** A record outlives its heartbeat by far: an orphan waits for the next instance that sweeps. */
const RECORD_TTL_MS = 6 * 60 * 60_000;
/** Expired heartbeats looked at per sweep; the rest wait for the next. */
const SWEEP_LIMIT = 20;

/** A reply in progress, as any instance can rebuild and finish it. */
export interface ReplyRecord {
  /** What the platform's adapter needs to rebuild the question (Question.revival). */
  revival: unknown;
  /** The keys of the answer's messages posted so far, in order. */
  posted: string[];
  /** The instance writing it. */
  owner: string;
}

/** One reply's heartbeat, held by the instance writing it. */
export interface Heartbeat {
  /** A message of the answer was posted. */
  posted(messageKey: string): void;
  /** The reply ended (finished, failed and told, stopped, withdrawn): nobody is to finish it. */
  end(): Promise<void>;
}

/**
 * Heartbeats of the replies in progress on every instance sharing the store: a record per reply and its expiry in a
 * sorted set, renewed for all of this instance's replies in one batch every beat. An instance that dies stops
 * renewing; `sweep` then finds its replies expired for another instance to finish.
 */
export class ReplyHeartbeats {
  readonly #store: Store;
  readonly #platform: string;
  readonly #logger: Logger;
  readonly #instance = randomUUID();
  /** This instance's replies, by question key. */
  readonly #beating = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  /** A beat still at work when the next is due: the next is skipped. */
  #busy = false;
  #onExpired: ((questionKey: string) => Promise<void>) | undefined;

  constructor(store: Store, platform: string, logger: Logger) {
    this.#store = store;
    this.#platform = platform;
    this.#logger = logger;
  }

  /** Every beat from now on, `onExpired` is called for each expired reply of another instance. */
  sweep(onExpired: (questionKey: string) => Promise<void>): void {
    this.#onExpired = onExpired;
    this.#tick();
  }

  /** Starts the heartbeat of a reply this instance writes (or took over), with the messages it already has. */
  async begin(questionKey: string, revival: unknown, posted: string[] = []): Promise<Heartbeat> {
    let record: ReplyRecord = { revival, posted: [...posted], owner: this.#instance };
    // The record goes first: a sweep never finds a heartbeat without one, unless the record's own lifetime ran out.
    await this.#store.set(this.#recordKey(questionKey), record, RECORD_TTL_MS);
    await this.#store.sortedAdd(this.#set, questionKey, Date.now() + HEARTBEAT_EXPIRY_MS);
    this.#beating.add(questionKey);
    this.#tick();
    let writes = Promise.resolve();
    return {
      posted: (messageKey) => {
        record = { ...record, posted: [...record.posted, messageKey] };
        const now = record;
        writes = writes
          .then(() => this.#store.set(this.#recordKey(questionKey), now, RECORD_TTL_MS))
          .catch((error: unknown) => this.#logger.warn({ err: error, question: questionKey }, "recording a reply's message failed"));
      },
      end: async () => {
        this.#beating.delete(questionKey);
        await writes;
        const current = await this.record(questionKey);
        // Taken over meanwhile (this instance was thought dead): the reply is the other instance's now.
        if (current && current.owner !== this.#instance) return;
        await this.forget(questionKey);
      },
    };
  }

  record(questionKey: string): Promise<ReplyRecord | undefined> {
    return this.#store.get<ReplyRecord>(this.#recordKey(questionKey));
  }

  /** Whether the reply's heartbeat is (still) expired: among the oldest expired ones, where a sweep found it. */
  async expired(questionKey: string): Promise<boolean> {
    const found = await this.#store.sortedUpTo(this.#set, Date.now(), SWEEP_LIMIT);
    return found.some(({ member }) => member === questionKey);
  }

  /** Nobody is to finish the reply. */
  async forget(questionKey: string): Promise<void> {
    await this.#store.sortedRemove(this.#set, questionKey);
    await this.#store.delete(this.#recordKey(questionKey));
  }

  /** Stops beating and sweeping: this instance's replies are ended or abandoned. */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#onExpired = undefined;
  }

  #tick(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      if (this.#busy) return;
      this.#busy = true;
      void this.#beat().finally(() => (this.#busy = false));
    }, BEAT_MS);
    this.#timer.unref();
  }

  async #beat(): Promise<void> {
    const expiry = Date.now() + HEARTBEAT_EXPIRY_MS;
    try {
      await Promise.all([...this.#beating].map((key) => this.#store.sortedAdd(this.#set, key, expiry)));
    } catch (error) {
      this.#logger.warn({ err: error }, 'renewing reply heartbeats failed');
    }
    const onExpired = this.#onExpired;
    if (!onExpired) return;
    try {
      for (const { member } of await this.#store.sortedUpTo(this.#set, Date.now(), SWEEP_LIMIT)) {
        if (!this.#beating.has(member)) await onExpired(member);
      }
    } catch (error) {
      this.#logger.warn({ err: error }, 'looking for replies left unfinished failed');
    }
  }

  get #set(): string {
    return `replies:${this.#platform}`;
  }

  #recordKey(questionKey: string): string {
    return `reply:${this.#platform}:${questionKey}`;
  }
}
