import { setTimeout as sleep } from 'node:timers/promises';
import { LockBusyError } from '../errors.ts';
import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';
import { untilAborted } from '../until-aborted.ts';

export interface LockOptions {
  /** Lifetime of the lock in the store; renewed while held, so only a crashed holder lets it lapse. */
  ttlMs: number;
  /** How often a holder renews (default a third of the TTL). */
  renewEveryMs?: number;
  /** First and longest pause between attempts when another instance holds the lock. */
  pollMinMs: number;
  pollMaxMs: number;
  /** Longest wait before giving up with a `busy` error. */
  maxWaitMs: number;
}

// The TTL bounds how long a crashed instance's conversations stay locked (another instance's takeover waits it out).
export const defaultLockOptions: LockOptions = { ttlMs: 15_000, pollMinMs: 25, pollMaxMs: 400, maxWaitMs: 180_000 };

export interface Lease {
  /** True when a renewal found the lock gone (expired or taken): another reply may be running. */
  readonly lost: boolean;
  release(): Promise<void>;
}

export interface TakeOptions {
  signal?: AbortSignal;
  /** Runs once if the caller has to wait at all (for a "waiting for the previous reply" status). */
  onWait?: () => void;
}

export interface Ticket {
  /** Waits for this place's turn and the store lock. */
  take(options?: TakeOptions): Promise<Lease>;
  /** Gives the place up without ever taking the lock. */
  cancel(): void;
}

/**
 * One reply at a time per conversation, in arrival order.
 * - Within this process, callers queue strictly first-come-first-served (a promise chain per key), so only
 *   the head of the queue touches the store.
 * - Across instances, the store lock decides; the head polls with a growing, jittered pause (pollMinMs up
 *   to pollMaxMs), which keeps instances from polling in lockstep. Instances are not ordered against each
 *   other beyond that: two instances' messages arriving within one poll interval may swap.
 * - The holder renews the store lock every renewEveryMs while a long reply streams.
 * - A holder waiting on a person (an approval) keeps the lock and renews it: turns behind it wait, so the history it
 *   read stays the conversation's latest, and a holder that crashes meanwhile frees the conversation within a TTL.
 */
export class ConversationLocks {
  readonly #store: Store;
  readonly #options: Required<LockOptions>;
  readonly #logger: Logger;
  readonly #tails = new Map<string, Promise<void>>();

  constructor(store: Store, logger: Logger, options: Partial<LockOptions> = {}) {
    const merged = { ...defaultLockOptions, ...options };
    this.#options = { renewEveryMs: Math.max(10, Math.floor(merged.ttlMs / 3)), ...merged };
    this.#store = store;
    this.#logger = logger;
  }

  /**
   * Takes a place in the conversation's queue, synchronously: the order of calls is the order of turns.
   * The caller then either waits for its turn with `take` or gives its place up with `cancel`.
   */
  enqueue(key: string): Ticket {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let finished!: () => void;
    const turn = new Promise<void>((resolve) => {
      finished = resolve;
    });
    this.#tails.set(key, turn);
    const leave = () => {
      finished();
      if (this.#tails.get(key) === turn) this.#tails.delete(key);
    };
    // Whoever gives up still holds its place until everyone before it is done.
    const leaveAfterPrevious = () => void previous.then(leave);
    let used = false;
    return {
      take: (options = {}) => {
        if (used) throw new Error('a lock ticket is used once');
        used = true;
        return this.#take(key, previous, options).then(
          (lease) => lease(leave),
          (error: unknown) => {
            leaveAfterPrevious();
            throw error;
          },
        );
      },
      cancel: () => {
        if (used) return;
        used = true;
        leaveAfterPrevious();
      },
    };
  }

  /** enqueue(key).take(options) */
  acquire(key: string, options: TakeOptions = {}): Promise<Lease> {
    return this.enqueue(key).take(options);
  }

  async #take(key: string, previous: Promise<void>, { signal, onWait }: TakeOptions): Promise<(leave: () => void) => Lease> {
    const started = Date.now();
    let waiting = false;
    const noteWait = () => {
      if (!waiting) {
        waiting = true;
        onWait?.();
      }
    };
    let settled = false;
    void previous.then(() => {
      settled = true;
    });
    await Promise.resolve();
    if (!settled) noteWait();
    await untilAborted(previous, signal);
    const storeKey = `lock:${key}`;
    const token = await this.#acquire(storeKey, { signal, onWait: noteWait }, started);
    return (leave) => this.#lease(storeKey, token, leave);
  }

  /** Polls for the store lock. */
  async #acquire(storeKey: string, { signal, onWait }: TakeOptions, started: number): Promise<string> {
    let pause = this.#options.pollMinMs;
    for (;;) {
      signal?.throwIfAborted();
      const token = await this.#store.acquireLock(storeKey, this.#options.ttlMs);
      if (token) return token;
      onWait?.();
      if (Date.now() - started + pause > this.#options.maxWaitMs) throw new LockBusyError(Date.now() - started);
      await sleep(pause * (0.75 + Math.random() * 0.5), undefined, { signal });
      pause = Math.min(this.#options.pollMaxMs, pause * 2);
    }
  }

  #lease(storeKey: string, token: string, leave: () => void): Lease {
    let lost = false;
    let released = false;
    const renew = setInterval(() => {
      this.#store.renewLock(storeKey, token, this.#options.ttlMs).then(
        (ok) => {
          if (!ok && !released) {
            lost = true;
            this.#logger.warn({ lock: storeKey }, 'conversation lock lost while replying');
          }
        },
        (error: unknown) => this.#logger.warn({ lock: storeKey, err: error }, 'conversation lock renewal failed'),
      );
    }, this.#options.renewEveryMs);
    renew.unref();
    return {
      get lost() {
        return lost;
      },
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        try {
          await this.#store.releaseLock(storeKey, token);
        } catch (error) {
          this.#logger.warn({ lock: storeKey, err: error }, 'conversation lock release failed; it expires by itself');
        } finally {
          leave();
        }
      },
    };
  }
}
