/** What a schedule does when it runs: a plain reminder, a prompt answered by the engine, or a summary of a channel. */
export type ScheduleKind = 'reminder' | 'prompt' | 'summary';

/** Where a run is posted: a channel (and thread) of the schedule's workspace, or a direct message to its creator. */
export type ScheduleTarget = { type: 'channel'; channelId: string; threadId?: string } | { type: 'direct' };

/** When it runs: once at an instant, or on a cron pattern (croner's syntax) read in the schedule's time zone. */
export type ScheduleTiming = { type: 'once'; at: number } | { type: 'recurring'; pattern: string };

export interface ScheduleCreator {
  id: string;
  displayName: string;
}

/** One stored schedule. Times are ms since the epoch. */
export interface Schedule {
  /** Short and typeable: users name it to pause, resume or delete it. */
  id: string;
  kind: ScheduleKind;
  /** `discord`, `slack`, … */
  platform: string;
  /** Guild (Discord) or workspace (Slack); absent for one set in a direct message outside any. */
  workspaceId?: string;
  creator: ScheduleCreator;
  target: ScheduleTarget;
  /** What to remind of, or the prompt to run; for a summary, a note shown in lists (may be empty). */
  text: string;
  /** For a summary: the channel or thread it summarizes, since the run before (or the last day at the first run). */
  source?: { channelId: string; threadId?: string };
  timing: ScheduleTiming;
  /** How the creator said when ("every weekday at 9"), shown back in lists. */
  when: string;
  /** The IANA time zone `when` was read in. */
  timezone: string;
  state: 'active' | 'paused';
  /** The next occurrence; null for a paused one-shot whose time has passed. */
  nextRunAt: number | null;
  lastRunAt?: number;
  /** Failed runs in a row; the schedule is paused at SCHEDULE_MAX_FAILURES. */
  failures: number;
  createdAt: number;
}

/** A schedule as a command asks for it; `when` is parsed in `timezone` against the service's clock. */
export type NewSchedule = Pick<Schedule, 'kind' | 'platform' | 'workspaceId' | 'creator' | 'target' | 'text' | 'source' | 'when' | 'timezone'>;

/** Who manages schedules: members their own, admins every one of their workspace. */
export interface ScheduleActor {
  platform: string;
  workspaceId?: string;
  userId: string;
  isAdmin: boolean;
}
