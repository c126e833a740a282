import type { Config } from '../config/config.ts';
import type { ConversationEngine } from '../conversation/engine.ts';
import type { Logger } from '../log/logger.ts';
import type { Store, Unsubscribe } from '../store/store.ts';
import { ScheduleBook } from './schedule-book.ts';
import type { Schedule, ScheduleKind } from './schedule.ts';
import type { RunAccess, ScheduleDelivery } from './schedule-delivery.ts';
import { ScheduleRecords } from './schedule-records.ts';
import { ScheduleRunner, type OccurrenceRun, type RunResult } from './schedule-runner.ts';
import type { ScheduleService } from './schedule-service.ts';
import { UserTimezones } from './user-timezones.ts';

export interface SchedulerDeps {
  store: Store;
  engine: ConversationEngine;
  config: Pick<Config, 'conversation' | 'timezone' | 'schedules'>;
  logger: Logger;
  /** The clock schedules run by (ms since the epoch); tests control it. */
  now?: () => number;
  /** How long a claim on an occurrence lasts unless renewed (default a minute). */
  leaseMs?: number;
  /** The longest the loop sleeps before looking at the due index again, whatever it expects (default 30 s). */
  pollMs?: number;
  /** Told what became of every occurrence this instance took up (metrics, tests). */
  onRun?: (run: ScheduleRun) => void;
}

/** An occurrence this instance took up, and what became of it. */
export type ScheduleRun = OccurrenceRun & { scheduleId: string; platform: string; dueAt: number };

/** Whether this instance did (or began) the run, as opposed to finding it held elsewhere, done or not its own. */
export function ranHere(run: ScheduleRun): run is ScheduleRun & { kind: ScheduleKind } {
  return run.kind !== undefined && (run.result === 'ran' || run.result === 'deferred' || run.result === 'lost');
}

/** Longest the check of a new schedule's access may take before it is left to the first run. */
const ACCESS_CHECK_MS = 10_000;
/** Runs at once on one instance, at most. */
const MAX_RUNNING = 4;
/** Due occurrences read per look. */
const BATCH = 50;
/** Where instances tell each other that something became due sooner. */
const WAKE_CHANNEL = 'schedules:wake';

/**
 * The scheduler of one instance: a timer to the next due occurrence (and a bounded poll as a backstop, since other
 * instances add schedules too), each occurrence run through its platform's delivery by ScheduleRunner, once across
 * instances. `service` is what the commands use; `timezones` the users' zones. Deliveries are attached as platforms start.
 */
export class Scheduler {
  readonly service: ScheduleService;
  readonly timezones: UserTimezones;
  readonly #deps: SchedulerDeps;
  readonly #now: () => number;
  readonly #pollMs: number;
  readonly #leaseMs: number;
  readonly #records: ScheduleRecords;
  readonly #runner: ScheduleRunner;
  readonly #deliveries = new Map<string, ScheduleDelivery>();
  readonly #running = new Map<string, Promise<RunResult | undefined>>();
  #stopping = new AbortController();
  #started = false;
  #timer: NodeJS.Timeout | undefined;
  /** When the timer fires (performance.now() time); Infinity without one. */
  #timerAt = Infinity;
  #looking = false;
  #lookAgain = false;
  #unsubscribe: Unsubscribe | undefined;

  constructor(deps: SchedulerDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#leaseMs = deps.leaseMs ?? 60_000;
    this.#pollMs = deps.pollMs ?? 30_000;
    this.#records = new ScheduleRecords(deps.store);
    this.#runner = new ScheduleRunner({
      store: deps.store,
      records: this.#records,
      engine: deps.engine,
      config: deps.config,
      logger: deps.logger,
      now: this.#now,
      leaseMs: this.#leaseMs,
      graceMs: deps.config.schedules.graceMs,
      deliveryFor: (platform) => this.#deliveries.get(platform),
    });
    this.service = new ScheduleBook({
      records: this.#records,
      now: this.#now,
      wake: () => this.#announce(),
      access: (schedule) => this.#access(schedule),
      runNow: (schedule) => this.#runner.runNow(schedule, this.#stopping.signal),
    });
    this.timezones = new UserTimezones(deps.store, deps.config.timezone);
  }

  /** Delivers this platform's schedules from now on; returns a function that stops it. */
  attach(delivery: ScheduleDelivery): () => void {
    this.#deliveries.set(delivery.platform, delivery);
    this.wake();
    return () => {
      if (this.#deliveries.get(delivery.platform) === delivery) this.#deliveries.delete(delivery.platform);
    };
  }

  /** Starts the loop: occurrences missed while Herald was down run (or are skipped) at once. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    this.#stopping = new AbortController();
    this.#unsubscribe = await this.#deps.store.subscribe(WAKE_CHANNEL, () => this.wake());
    this.wake();
  }

  /**
   * Stops the loop. Runs in progress may finish until `signal` aborts (a shutdown's bound; without one they are
   * stopped at once); those stopped stay due, for the next instance to run with the same key.
   */
  async stop(options: { signal?: AbortSignal } = {}): Promise<void> {
    this.#started = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
    await this.#unsubscribe?.().catch(() => {});
    this.#unsubscribe = undefined;
    const { signal } = options;
    if (signal && !signal.aborted && this.#running.size > 0) {
      const bound = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      await Promise.race([Promise.allSettled(this.#running.values()), bound]);
    }
    this.#stopping.abort(new Error('the scheduler stopped'));
    await Promise.allSettled(this.#running.values());
  }

  /** Runs every occurrence due by now whose platform is attached here; resolves once those runs are over. */
  async tick(): Promise<void> {
    for (;;) {
      const { runs, more } = await this.#startDue();
      const results = await Promise.all(runs);
      // Another round only while this one was cut at MAX_RUNNING and did something (not all held elsewhere or put off).
      if (!more || results.every((result) => result === 'held' || result === 'deferred')) return;
    }
  }

  /** Looks at the due index now (a schedule was added or resumed here or elsewhere, a run ended). */
  wake(): void {
    this.#lookWithin(0);
  }

  /** Looks at the due index within `ms`: sooner if the loop planned to look later, never later than it planned. */
  #lookWithin(ms: number): void {
    if (!this.#started) return;
    const at = performance.now() + ms;
    if (this.#timer && this.#timerAt <= at) return;
    clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timerAt = Infinity;
      void this.#look();
    }, ms);
    this.#timer.unref();
  }

  async #look(): Promise<void> {
    if (this.#looking) {
      this.#lookAgain = true;
      return;
    }
    this.#looking = true;
    let delayMs = this.#pollMs;
    try {
      // A run that did something may have made the next one due sooner; one held elsewhere is tried again once the
      // other instance's lease could have lapsed (not at once: that would spin while it runs).
      const started = await this.#startDue();
      for (const run of started.runs) {
        void run.then((result) => this.#lookWithin(result === 'held' || result === 'elsewhere' || result === 'deferred' ? this.#retryMs() : 0));
      }
      delayMs = started.delayMs;
    } catch (error) {
      this.#deps.logger.warn({ err: error }, 'looking for due schedules failed');
    } finally {
      this.#looking = false;
    }
    if (this.#lookAgain) {
      this.#lookAgain = false;
      delayMs = 0;
    }
    this.#lookWithin(delayMs);
  }

  #retryMs(): number {
    return Math.min(this.#pollMs, Math.max(1, Math.floor(this.#leaseMs / 2)));
  }

  /**
   * Starts the due occurrences of the platforms attached here that are not running yet, up to MAX_RUNNING at once;
   * `more` when some had to wait. `delayMs` is how long to sleep after: until the next occurrence not running here,
   * sooner while one is due but held elsewhere. One read of the index per platform gives both.
   */
  async #startDue(): Promise<{ runs: Promise<RunResult | undefined>[]; more: boolean; delayMs: number }> {
    const runs: Promise<RunResult | undefined>[] = [];
    let more = false;
    let delayMs = this.#pollMs;
    for (const platform of this.#deliveries.keys()) {
      const upcoming = await this.#records.dueBy(platform, Infinity, BATCH);
      const now = this.#now();
      for (const { id, dueAt } of upcoming) {
        if (dueAt > now) break;
        if (this.#running.has(id)) continue;
        if (this.#running.size >= MAX_RUNNING) {
          more = true;
          break;
        }
        const run = this.#run(platform, id, dueAt).finally(() => this.#running.delete(id));
        this.#running.set(id, run);
        runs.push(run);
      }
      more ||= upcoming.length === BATCH && upcoming.every(({ dueAt }) => dueAt <= now);
      const next = upcoming.find(({ id }) => !this.#running.has(id));
      // Due but not taken (held elsewhere, or put off by a limit): look again in a while.
      if (next) delayMs = Math.min(delayMs, next.dueAt > now ? next.dueAt - now : this.#retryMs());
    }
    return { runs, more, delayMs };
  }

  async #run(platform: string, id: string, dueAt: number): Promise<RunResult | undefined> {
    const lateMs = this.#now() - dueAt;
    const started = performance.now();
    try {
      const run: ScheduleRun = { scheduleId: id, platform, dueAt, ...(await this.#runner.runOccurrence(platform, id, dueAt, this.#stopping.signal)) };
      const { result, kind, outcome } = run;
      const line = { schedule: id, platform, kind, dueAt, lateMs, durationMs: Math.round(performance.now() - started), result, outcome };
      if (ranHere(run)) this.#deps.logger.info(line, 'schedule run');
      else this.#deps.logger.debug(line, 'schedule occurrence not run here');
      this.#deps.onRun?.(run);
      return result;
    } catch (error) {
      this.#deps.logger.error({ err: error, schedule: id }, 'a schedule run failed');
      return undefined;
    }
  }

  /** Whether a run of `schedule` could go ahead now; undefined when its platform is not here or the check failed. */
  async #access(schedule: Schedule): Promise<RunAccess | undefined> {
    const delivery = this.#deliveries.get(schedule.platform);
    if (!delivery) return undefined;
    try {
      return await delivery.mayRun(schedule, AbortSignal.timeout(ACCESS_CHECK_MS));
    } catch (error) {
      // The platform did not answer: the first run checks again.
      this.#deps.logger.warn({ err: error, platform: schedule.platform }, 'checking a new schedule’s access failed');
      return undefined;
    }
  }

  /** Wakes this instance and every other one sharing the store. */
  #announce(): void {
    this.wake();
    this.#deps.store.publish(WAKE_CHANNEL, 'due').catch((error: unknown) => this.#deps.logger.warn({ err: error }, 'announcing a schedule failed'));
  }
}
