import type { ReplyStream } from '../conversation/types.ts';
import type { WorkspaceHistory } from '../workspace/workspace-history.ts';
import type { Schedule } from './schedule.ts';

/** Whether a run may go ahead where its schedule posts, and with what. */
export type RunAccess =
  | {
      allowed: true;
      /** What the creator and Herald can read from the target: a summary reads its source through it. */
      workspace?: WorkspaceHistory;
    }
  /** `reason` is told to the creator, when setting it up and at a refused run: "you cannot post in #standup". */
  | { allowed: false; reason: string };

/**
 * What a run posts: a reminder's text (the platform puts a mention of the creator, and of nobody else, in front of
 * it), or the engine's reply to a prompt or summary, rendered like an answer, sources included. A reply's errors
 * never reach the stream: the scheduler reports them to the creator.
 */
export type ScheduledPost = { type: 'reminder'; text: string } | { type: 'reply'; stream: ReplyStream };

export interface PostOptions {
  /**
   * The same for every attempt at one occurrence (schedule id and occurrence time). A platform that has an
   * idempotency key on posts derives it from this one, so a post retried after a crash shows once.
   */
  idempotencyKey: string;
  /** Aborted when this instance lost the occurrence (its lease expired) or is shutting down. */
  signal: AbortSignal;
}

/** A platform's side of schedules: the adapter implements it; the core's scheduler calls it. */
export interface ScheduleDelivery {
  /** The platform whose schedules it delivers (`discord`, `slack`): `Schedule.platform`. */
  readonly platform: string;
  /**
   * True where a post repeated with the same idempotency key shows once (Discord's nonce with enforce_nonce). Where
   * false (Slack), a run found interrupted mid-post after a crash is reported to its creator instead of repeated.
   */
  readonly idempotentPosts: boolean;
  /**
   * Checked when a schedule is set up and again before every run: the creator may read and post at the target, and
   * Herald may post there; for a summary, both may read its source.
   */
  mayRun(schedule: Schedule, signal: AbortSignal): Promise<RunAccess>;
  /** Posts a run at the schedule's target; resolves once all of it is posted. */
  post(schedule: Schedule, post: ScheduledPost, options: PostOptions): Promise<void>;
  /** Tells the creator privately (a direct message) about their schedule: a failed, skipped or interrupted run, a pause. */
  notify(schedule: Schedule, text: string): Promise<void>;
}
