import type { Config } from '../config/config.ts';
import type { ConversationEngine } from '../conversation/engine.ts';
import type { IncomingMessage, ReplyStream } from '../conversation/types.ts';
import { describeError } from '../errors.ts';
import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';
import { MAX_SUMMARY_MESSAGES, summaryTask } from '../workspace/summarize.ts';
import type { WorkspaceHistory } from '../workspace/workspace-history.ts';
import { OccurrenceLease } from './occurrence-lease.ts';
import { nextOccurrence, previousOccurrence } from './parse-when.ts';
import type { Schedule, ScheduleKind } from './schedule.ts';
import type { ScheduleDelivery } from './schedule-delivery.ts';
import { ScheduleError } from './schedule-error.ts';
import { failedNote, interruptedNote, pausedNote, skippedNote } from './schedule-notes.ts';
import type { ScheduleRecords } from './schedule-records.ts';
import { openScheduledReply } from './scheduled-reply.ts';

/** A schedule that fails this many runs in a row is paused. */
export const SCHEDULE_MAX_FAILURES = 3;
/** How long an occurrence's outcome is remembered, so that no instance runs it again. */
const OUTCOME_TTL_MS = 7 * 24 * 3_600_000;
/** Longest a run may take, from the access check to the end of its post. */
const MAX_RUN_MS = 10 * 60_000;
/** A one-off summary reads this far back. */
const ONE_OFF_SUMMARY_MS = 24 * 3_600_000;

export interface RunnerDeps {
  store: Store;
  records: ScheduleRecords;
  engine: ConversationEngine;
  config: Pick<Config, 'conversation' | 'timezone'>;
  logger: Logger;
  now: () => number;
  /** How long a claim on an occurrence lasts unless renewed. */
  leaseMs: number;
  /** How late an occurrence may still run (after Herald was down); later ones are skipped with a note. */
  graceMs: number;
  /** The delivery of a platform this instance is connected to. */
  deliveryFor: (platform: string) => ScheduleDelivery | undefined;
}

/**
 * What became of one occurrence on this instance: run; held by another instance; not due then any more; stopped
 * before its end (left for the next instance); of a platform this instance is not connected to; or put off by a
 * per-minute limit of its creator or server (it stays due, to be tried again shortly).
 */
export type RunResult = 'ran' | 'held' | 'stale' | 'lost' | 'elsewhere' | 'deferred';

/** How a run that went ahead ended: posted, refused or failed, skipped for lateness, or found interrupted mid-post. */
export type RunOutcome = 'ok' | 'failed' | 'skipped' | 'interrupted';

/** One occurrence taken up: its result, its schedule's kind once found, and for a run that went ahead, its outcome. */
export interface OccurrenceRun {
  result: RunResult;
  kind?: ScheduleKind;
  outcome?: RunOutcome;
}

type Outcome =
  | { kind: 'ok' }
  | { kind: 'failed'; reason: string }
  | { kind: 'skipped' }
  | { kind: 'interrupted' }
  /** Refused by a per-minute limit before anything was posted: worth trying again while the grace window lasts. */
  | { kind: 'limited'; reason: string; retryAfterMs: number };

/**
 * Runs occurrences of schedules, each once across every instance sharing the store: an occurrence (schedule id and
 * due time) is claimed with a renewed lease, its outcome is remembered before the claim is freed, and the schedule
 * then moves on to its next occurrence. A run posts through its platform's delivery with the occurrence as its
 * idempotency key; where the platform cannot dedupe posts, a run found begun by an instance that died is reported to
 * its creator instead of posted again.
 */
export class ScheduleRunner {
  readonly #deps: RunnerDeps;

  constructor(deps: RunnerDeps) {
    this.#deps = deps;
  }

  /** Runs the occurrence of `platform`'s schedule `id` due at `dueAt`, unless it is not due then any more or another instance has it. */
  async runOccurrence(platform: string, id: string, dueAt: number, signal: AbortSignal): Promise<OccurrenceRun> {
    const { store, records, leaseMs, logger } = this.#deps;
    const schedule = await records.get(id);
    if (!schedule) {
      await records.forgetDue(platform, id);
      return { result: 'stale' };
    }
    const { kind } = schedule;
    if (schedule.state !== 'active' || schedule.nextRunAt !== dueAt) return { result: 'stale', kind };
    const delivery = this.#deps.deliveryFor(schedule.platform);
    if (!delivery) return { result: 'elsewhere', kind };
    const occurrence = `${id}:${dueAt}`;
    if (await this.#finishedElsewhere(schedule, dueAt, occurrence)) return { result: 'stale', kind };
    const claim = `schedule-claim:${occurrence}`;
    const token = await store.acquireLock(claim, leaseMs);
    if (token === null) return { result: 'held', kind };
    const lease = new OccurrenceLease(store, claim, token, leaseMs, { logger, signal });
    try {
      // Between the first look and the claim, another instance may have finished it, or someone paused or deleted it.
      if (await this.#finishedElsewhere(schedule, dueAt, occurrence)) return { result: 'stale', kind };
      const current = await records.get(id);
      if (current?.state !== 'active' || current.nextRunAt !== dueAt) return { result: 'stale', kind };
      let outcome = await this.#perform(current, dueAt, occurrence, delivery, lease.signal);
      // Stopped (shutdown) or taken over: the occurrence stays for whoever runs it next, with the same key.
      if (lease.signal.aborted) return { result: 'lost', kind };
      if (outcome.kind === 'limited') {
        if (this.#deps.now() + outcome.retryAfterMs - dueAt <= this.#deps.graceMs) return { result: 'deferred', kind };
        outcome = { kind: 'failed', reason: outcome.reason };
      }
      await store.set(outcomeKey(occurrence), outcome.kind, OUTCOME_TTL_MS);
      await this.#moveOn(current, dueAt, outcome, delivery);
      return { result: 'ran', kind, outcome: outcome.kind };
    } finally {
      await lease.end(logger);
    }
  }

  /**
   * Whether the occurrence's outcome is recorded already (an instance ran it, then stopped before moving the schedule
   * on): then it only moves on.
   */
  async #finishedElsewhere(schedule: Schedule, dueAt: number, occurrence: string): Promise<boolean> {
    const kind = await this.#deps.store.get<Exclude<Outcome['kind'], 'limited'>>(outcomeKey(occurrence));
    if (kind === undefined) return false;
    await this.#moveOn(schedule, dueAt, kind === 'failed' ? { kind, reason: '' } : { kind });
    return true;
  }

  /** Runs a schedule once now, outside its timetable (which stays); a ScheduleError says why it could not. */
  async runNow(schedule: Schedule, signal: AbortSignal): Promise<void> {
    const { store, leaseMs, logger } = this.#deps;
    const delivery = this.#deps.deliveryFor(schedule.platform);
    if (!delivery) throw new ScheduleError('I cannot run it from here right now; try again shortly.', 'unavailable');
    const claim = `schedule-now:${schedule.id}`;
    const token = await store.acquireLock(claim, leaseMs);
    if (token === null) throw new ScheduleError('It is running already.', 'unavailable');
    const lease = new OccurrenceLease(store, claim, token, leaseMs, { logger, signal });
    try {
      const now = this.#deps.now();
      const outcome = await this.#perform(schedule, now, `${schedule.id}:now:${now}`, delivery, lease.signal);
      // Told to whoever ran it, who is waiting for the answer, rather than to its creator later.
      if (outcome.kind === 'failed' || outcome.kind === 'limited') {
        throw new ScheduleError(`It could not run: ${outcome.reason.replace(/\.$/, '')}.`, 'unavailable');
      }
    } finally {
      await lease.end(logger);
    }
  }

  async #perform(schedule: Schedule, dueAt: number, occurrence: string, delivery: ScheduleDelivery, stop: AbortSignal): Promise<Outcome> {
    const { store, graceMs, now, logger } = this.#deps;
    if (now() - dueAt > graceMs) return { kind: 'skipped' };
    const timeout = AbortSignal.timeout(MAX_RUN_MS);
    const signal = AbortSignal.any([stop, timeout]);
    try {
      const access = await delivery.mayRun(schedule, signal);
      if (!access.allowed) return { kind: 'failed', reason: access.reason };
      const options = { idempotencyKey: occurrence, signal };
      // An earlier attempt got as far as posting, then its instance died: only a platform that dedupes may post again.
      const attempt = `schedule-attempt:${occurrence}`;
      if (!delivery.idempotentPosts && (await store.get(attempt)) !== undefined) return { kind: 'interrupted' };
      const posting = () => store.set(attempt, now(), OUTCOME_TTL_MS);
      if (schedule.kind === 'reminder') {
        await posting();
        await delivery.post(schedule, { type: 'reminder', text: schedule.text }, options);
        return { kind: 'ok' };
      }
      const reply = await openScheduledReply(this.#reply(schedule, dueAt, occurrence, access.workspace, signal));
      try {
        if (reply.stream) {
          await posting();
          await delivery.post(schedule, { type: 'reply', stream: reply.stream }, options);
        }
      } finally {
        await reply.close();
      }
      if (reply.error?.code === 'rate_limited' && !reply.stream) {
        return { kind: 'limited', reason: reply.error.message, retryAfterMs: reply.error.retryAfterMs ?? 0 };
      }
      if (reply.error) return { kind: 'failed', reason: reply.error.message };
      return reply.stream ? { kind: 'ok' } : { kind: 'failed', reason: 'The answer came back empty.' };
    } catch (error) {
      if (timeout.aborted) return { kind: 'failed', reason: `It took longer than ${MAX_RUN_MS / 60_000} minutes.` };
      if (stop.aborted) return { kind: 'failed', reason: 'The run was stopped.' };
      logger.warn({ err: error, schedule: schedule.id, platform: schedule.platform }, 'schedule run failed');
      return { kind: 'failed', reason: describeError(error).message };
    }
  }

  /** The engine's reply for a prompt or summary, charged to the creator, in the schedule's own conversation. */
  #reply(schedule: Schedule, dueAt: number, occurrence: string, workspace: WorkspaceHistory | undefined, signal: AbortSignal): ReplyStream {
    const { engine, config } = this.#deps;
    const direct = schedule.target.type === 'direct';
    const message: IncomingMessage = {
      platform: schedule.platform,
      ...(schedule.workspaceId !== undefined && { workspaceId: schedule.workspaceId }),
      channelId: schedule.target.type === 'channel' ? schedule.target.channelId : `direct:${schedule.creator.id}`,
      threadId: `schedule:${schedule.id}`,
      messageId: `schedule:${occurrence}`,
      author: { id: schedule.creator.id, displayName: schedule.creator.displayName },
      text: schedule.text,
      isDirect: direct,
    };
    if (schedule.kind === 'prompt') return engine.handle(message, { signal, ...(workspace && { workspace }) });
    const source = schedule.source ?? (schedule.target.type === 'channel' ? schedule.target : undefined);
    if (!workspace || !source) {
      return engine.runTask(message, async ({ emit }) => emit({ type: 'error', code: 'refused', message: 'I cannot read the history there.' }), {
        signal,
      });
    }
    const range = {
      channelId: source.channelId,
      ...(source.threadId !== undefined && { threadId: source.threadId }),
      since: schedule.lastRunAt ?? this.#previousTime(schedule, dueAt),
      limit: MAX_SUMMARY_MESSAGES,
    };
    return engine.runTask(message, summaryTask({ history: workspace, range }, config), { signal });
  }

  /** Where a summary that has not run before starts: its timetable's occurrence before this one ("since last Friday"). */
  #previousTime(schedule: Schedule, dueAt: number): number {
    const previous = schedule.timing.type === 'recurring' ? previousOccurrence(schedule.timing.pattern, schedule.timezone, dueAt) : null;
    return previous ?? dueAt - ONE_OFF_SUMMARY_MS;
  }

  /** Records an occurrence's outcome: a one-shot is done, a repetition moves to its next time; tells the creator what they need to know. */
  async #moveOn(schedule: Schedule, dueAt: number, outcome: Outcome, delivery?: ScheduleDelivery): Promise<void> {
    const { records, now } = this.#deps;
    let failures = 0;
    let next: number | null = null;
    const kept = await records.update(schedule.id, (current) => {
      if (current.nextRunAt !== dueAt) return current;
      failures = outcome.kind === 'failed' ? current.failures + 1 : outcome.kind === 'ok' ? 0 : current.failures;
      if (current.timing.type === 'once') return null;
      next = nextOccurrence(current.timing.pattern, current.timezone, Math.max(dueAt, now()));
      if (next === null) return null;
      const paused = failures >= SCHEDULE_MAX_FAILURES;
      return { ...current, lastRunAt: dueAt, failures, nextRunAt: next, state: paused ? 'paused' : current.state };
    });
    if (!delivery) return;
    if (outcome.kind === 'skipped') await this.#notify(delivery, schedule, skippedNote(schedule, dueAt, next, now()));
    else if (outcome.kind === 'interrupted') await this.#notify(delivery, schedule, interruptedNote(schedule, dueAt, now()));
    else if (outcome.kind === 'failed') {
      if (kept?.state === 'paused' && failures >= SCHEDULE_MAX_FAILURES)
        await this.#notify(delivery, schedule, pausedNote(schedule, failures, outcome.reason));
      else if (failures <= 1) await this.#notify(delivery, schedule, failedNote(schedule, dueAt, outcome.reason, now()));
    }
  }

  async #notify(delivery: ScheduleDelivery, schedule: Schedule, text: string): Promise<void> {
    await delivery
      .notify(schedule, text)
      .catch((error: unknown) =>
        this.#deps.logger.warn({ err: error, schedule: schedule.id, platform: schedule.platform }, 'telling a schedule’s creator failed'),
      );
  }
}

function outcomeKey(occurrence: string): string {
  return `schedule-outcome:${occurrence}`;
}
