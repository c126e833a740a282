import type { Logger } from '../log/logger.ts';

/** Run in this order; hooks of one phase run concurrently. */
export const SHUTDOWN_PHASES = ['stop-intake', 'finish-replies', 'close-platforms', 'close-store', 'close-server'] as const;
export type ShutdownPhase = (typeof SHUTDOWN_PHASES)[number];

export interface DrainContext {
  /** Why Herald stops (the signal name, or what the caller passed). */
  reason: string;
  /** Aborts when this phase's share of the time is used up: stop waiting, close hard. */
  signal: AbortSignal;
}

export type DrainHook = (context: DrainContext) => void | Promise<void>;

export interface ShutdownOptions {
  logger: Logger;
  /** The whole shutdown fits in this. Default 10_000 ms. */
  timeoutMs?: number;
  /**
   * Kept back at the end of the bound: `deadlineSignal` fires this long before it; the first half lets reply
   * owners close their messages, the second half closes connections. Default min(3500, 35 % of timeoutMs).
   */
  reserveMs?: number;
  /** Called whenever the number of tracked in-flight promises changes (feed a gauge with it). */
  onInflightChange?: (count: number) => void;
}

export interface ShutdownResult {
  reason: string;
  /** Every hook and every tracked promise finished in time and no hook failed. */
  clean: boolean;
  durationMs: number;
  /** Hooks (`phase/name`) and tracked work still running when their bound passed. */
  unfinished: string[];
  /** Hooks (`phase/name`) that threw or rejected. */
  failed: string[];
}

interface Hook {
  phase: ShutdownPhase;
  name: string;
  drain: DrainHook;
}

/**
 * Orders the stop of a running Herald: stop taking new work, let replies in progress finish (or close them
 * cleanly when the bound nears), close platform connections, the store, and last the HTTP server, so that
 * /healthz answers (and /readyz says 503) until the very end. Every wait is bounded.
 */
export class ShutdownCoordinator {
  readonly timeoutMs: number;
  readonly reserveMs: number;
  readonly #logger: Logger;
  readonly #onInflightChange: ((count: number) => void) | undefined;
  readonly #hooks: Hook[] = [];
  readonly #tracked = new Map<object, string>();
  readonly #draining = new AbortController();
  readonly #deadline = new AbortController();
  readonly #idle: (() => void)[] = [];
  #result: Promise<ShutdownResult> | undefined;

  constructor(options: ShutdownOptions) {
    this.#logger = options.logger;
    this.#onInflightChange = options.onInflightChange;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.reserveMs = Math.min(options.reserveMs ?? Math.min(3500, this.timeoutMs * 0.35), this.timeoutMs);
  }

  get isShuttingDown(): boolean {
    return this.#draining.signal.aborted;
  }

  /** Aborts as shutdown begins: refuse new work; long-running work may start wrapping up. */
  get drainingSignal(): AbortSignal {
    return this.#draining.signal;
  }

  /**
   * Aborts when work in progress must end now (the bound is near, or the replies phase is over): reply owners
   * stop streaming and finish their message with a note that Herald is restarting.
   */
  get deadlineSignal(): AbortSignal {
    return this.#deadline.signal;
  }

  get inflight(): number {
    return this.#tracked.size;
  }

  register(phase: ShutdownPhase, name: string, drain: DrainHook): void {
    if (!SHUTDOWN_PHASES.includes(phase)) throw new RangeError(`unknown shutdown phase ${JSON.stringify(phase)}`);
    this.#hooks.push({ phase, name, drain });
  }

  /** Counts `work` as in flight until it settles; shutdown waits for it in the finish-replies phase. */
  track<T>(work: Promise<T>, label = 'work'): Promise<T> {
    // A key of its own, so the same promise tracked twice counts twice.
    const key = {};
    this.#tracked.set(key, label);
    this.#onInflightChange?.(this.#tracked.size);
    const settled = () => {
      this.#tracked.delete(key);
      this.#onInflightChange?.(this.#tracked.size);
      if (this.#tracked.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
    };
    work.then(settled, settled);
    return work;
  }

  /** Starts the shutdown once; later calls return the same result. Never rejects. */
  shutdown(reason = 'shutdown'): Promise<ShutdownResult> {
    this.#result ??= this.#run(reason);
    return this.#result;
  }

  async #run(reason: string): Promise<ShutdownResult> {
    const started = performance.now();
    const endAt = started + this.timeoutMs;
    const deadlineAt = endAt - this.reserveMs;
    const repliesEndAt = deadlineAt + this.reserveMs / 2;
    const unfinished: string[] = [];
    const failed: string[] = [];

    this.#logger.info({ reason, timeoutMs: this.timeoutMs, inflight: this.inflight }, 'shutdown started');
    this.#draining.abort(new Error(`Herald is shutting down (${reason})`));
    const deadlineTimer = setTimeout(() => this.#abortDeadline(), Math.max(0, deadlineAt - performance.now()));

    for (const [index, phase] of SHUTDOWN_PHASES.entries()) {
      const now = performance.now();
      const phaseEndAt =
        phase === 'finish-replies'
          ? repliesEndAt
          : Math.min(now + (endAt - now) / (SHUTDOWN_PHASES.length - index), index === 0 ? deadlineAt : endAt);
      const controller = new AbortController();
      const running = new Map<Promise<void>, string>();
      for (const hook of this.#hooks.filter((h) => h.phase === phase)) {
        const label = `${phase}/${hook.name}`;
        const done = Promise.resolve()
          .then(() => hook.drain({ reason, signal: controller.signal }))
          .catch((error: unknown) => {
            failed.push(label);
            this.#logger.error({ err: error, hook: label }, 'shutdown hook failed');
          })
          .finally(() => running.delete(done));
        running.set(done, label);
      }
      const waits: Promise<unknown>[] = [...running.keys()];
      if (phase === 'finish-replies') waits.push(this.#whenIdle());

      const inTime = await settleBefore(Promise.all(waits), phaseEndAt - performance.now());
      if (!inTime) {
        controller.abort(new Error(`shutdown phase ${phase} ran out of time`));
        const left = [...(phase === 'finish-replies' ? this.#tracked.values() : []), ...running.values()];
        unfinished.push(...left);
        this.#logger.warn({ phase, unfinished: left }, 'shutdown phase ran out of time');
      }
      if (phase === 'finish-replies') {
        clearTimeout(deadlineTimer);
        this.#abortDeadline();
      }
    }

    const result: ShutdownResult = {
      reason,
      clean: unfinished.length === 0 && failed.length === 0,
      durationMs: Math.round(performance.now() - started),
      unfinished,
      failed,
    };
    this.#logger.info(result, 'shutdown finished');
    return result;
  }

  #abortDeadline(): void {
    if (!this.#deadline.signal.aborted) this.#deadline.abort(new Error('Herald is restarting'));
  }

  #whenIdle(): Promise<void> {
    if (this.#tracked.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }
}

/** True when `work` settled within `ms`. */
async function settleBefore(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  try {
    return await Promise.race([work.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
