import type { NewSchedule, Schedule, ScheduleActor } from './schedule.ts';

/**
 * Creating and managing schedules, for the commands. Every method throws a ScheduleError (its message fit to show
 * the user) when it refuses: an unreadable or past time, too many schedules, a place its runs could not post in
 * (checked by the platform's delivery when it is set up or resumed), an unknown id, or someone else's schedule for a
 * member who is not an admin of its workspace.
 */
export interface ScheduleService {
  /** Parses `when` and stores the schedule, due at its first occurrence. */
  create(input: NewSchedule): Promise<Schedule>;
  /** The schedules `actor` manages in their workspace (or their direct messages), soonest first; `all` for an admin: everyone's. */
  list(actor: ScheduleActor, options?: { all?: boolean }): Promise<Schedule[]>;
  pause(id: string, actor: ScheduleActor): Promise<Schedule>;
  /** Due again at its next occurrence from now (a one-shot whose time has passed cannot be resumed). */
  resume(id: string, actor: ScheduleActor): Promise<Schedule>;
  /** Returns the schedule deleted. */
  delete(id: string, actor: ScheduleActor): Promise<Schedule>;
  /** Runs it once now, outside its timetable (its next occurrence stays); refuses with why when it could not run. */
  run(id: string, actor: ScheduleActor): Promise<void>;
}
