import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';

/**
 * An occurrence claimed by this instance: the claim's lock is renewed every third of its lifetime while the run goes
 * on. Once it cannot be renewed (another instance took it after it expired, or the store stayed unreachable for a
 * whole lifetime), `signal` aborts: the run stops and leaves the occurrence to whoever holds it now.
 */
export class OccurrenceLease {
  readonly signal: AbortSignal;
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly #store: Store;
  readonly #key: string;
  readonly #token: string;
  #renewedAt = performance.now();

  constructor(store: Store, key: string, token: string, leaseMs: number, options: { logger: Logger; signal: AbortSignal }) {
    this.#store = store;
    this.#key = key;
    this.#token = token;
    this.signal = AbortSignal.any([this.#controller.signal, options.signal]);
    this.#timer = setInterval(
      () => {
        store.renewLock(key, token, leaseMs).then(
          (held) => {
            if (held) this.#renewedAt = performance.now();
            else this.#lose(options.logger, 'taken over');
          },
          (error: unknown) => {
            if (performance.now() - this.#renewedAt >= leaseMs) this.#lose(options.logger, 'not renewable', error);
          },
        );
      },
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    this.#timer.unref();
  }

  /** Stops renewing and frees the claim (when it is still this instance's). */
  async end(logger: Logger): Promise<void> {
    clearInterval(this.#timer);
    await this.#store
      .releaseLock(this.#key, this.#token)
      .catch((error: unknown) => logger.warn({ err: error, claim: this.#key }, 'releasing a schedule claim failed'));
  }

  #lose(logger: Logger, why: string, error?: unknown): void {
    if (this.#controller.signal.aborted) return;
    clearInterval(this.#timer);
    logger.warn({ claim: this.#key, why, ...(error !== undefined && { err: error }) }, 'lost the claim on a schedule run');
    this.#controller.abort(new Error(`the claim on ${this.#key} was lost (${why})`));
  }
}
