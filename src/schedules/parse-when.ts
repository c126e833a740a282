import * as chrono from 'chrono-node';
import { Cron } from 'croner';
import { ScheduleError } from './schedule-error.ts';
import { wallClock } from '../conversation/clock.ts';
import { instantOf } from './zone-time.ts';

/** A time as the scheduler keeps it: one instant, or a croner pattern with its first occurrence after now. */
export type ParsedWhen = { type: 'once'; at: number } | { type: 'recurring'; pattern: string; first: number };

/** Recurring runs closer together than this are refused: a schedule is a routine, not a loop. */
export const MIN_INTERVAL_MS = 10 * 60_000;
/** Longest text read as a time. */
const MAX_WHEN_LENGTH = 200;
const DAY_MS = 24 * 3_600_000;
/** A date given without a time of day means this hour. */
const DEFAULT_HOUR = 9;

const EXAMPLES = 'try "in 20 minutes", "tomorrow 9am", "next Monday 10:00", "every weekday at 9" or a cron pattern like "0 9 * * 1-5"';

/**
 * Reads when something should happen, as the user said it in their zone, relative to `now`: a one-off time
 * ("in 20 minutes", "tomorrow 9am", "next Monday 10:00"), a repetition ("every weekday at 9", "every Friday at 17:00",
 * "every day at 8:30", "every 2 hours") or a cron pattern ("30 8 * * 1-5", "@daily"). Throws a ScheduleError to show
 * the user when it cannot be read, has passed, never happens or repeats more often than MIN_INTERVAL_MS.
 */
export function parseWhen(text: string, options: { now: number; timezone: string }): ParsedWhen {
  const said = text.trim().replace(/\s+/g, ' ');
  if (said === '' || said.length > MAX_WHEN_LENGTH) throw unreadable(said);
  const pattern = cronPattern(said) ?? repetition(said.toLowerCase());
  if (pattern !== undefined) return recurring(pattern, said, options);
  if (/^(every|each|daily|weekdays|hourly)\b/i.test(said)) throw unreadable(said);
  return { type: 'once', at: oneOff(said, options) };
}

function unreadable(said: string): ScheduleError {
  return new ScheduleError(`I can't read "${said.slice(0, 60)}" as a time: ${EXAMPLES}.`, 'unparseable');
}

function recurring(pattern: string, said: string, { now, timezone }: { now: number; timezone: string }): ParsedWhen {
  let cron: Cron;
  try {
    cron = new Cron(pattern, { timezone, paused: true });
  } catch {
    throw unreadable(said);
  }
  const runs = cron.nextRuns(6, new Date(now)).map((d) => d.getTime());
  if (runs.length === 0) throw new ScheduleError(`"${said.slice(0, 60)}" never happens.`, 'unparseable');
  for (let i = 1; i < runs.length; i++) {
    if (runs[i]! - runs[i - 1]! < MIN_INTERVAL_MS) {
      throw new ScheduleError(`That repeats too often: schedules run at most every ${MIN_INTERVAL_MS / 60_000} minutes.`, 'too_frequent');
    }
  }
  return { type: 'recurring', pattern, first: runs[0]! };
}

/** The next occurrence of a croner pattern strictly after `after` in `timezone`; null when there is none. */
export function nextOccurrence(pattern: string, timezone: string, after: number): number | null {
  return new Cron(pattern, { timezone, paused: true }).nextRun(new Date(after))?.getTime() ?? null;
}

/** The last occurrence of a croner pattern strictly before `before` in `timezone`; null when there is none. */
export function previousOccurrence(pattern: string, timezone: string, before: number): number | null {
  return new Cron(pattern, { timezone, paused: true }).previousRuns(1, new Date(before))[0]?.getTime() ?? null;
}

/** Five fields of cron syntax ("30 8 * * 1-5"), or a nickname such as "@daily", as croner reads them. */
function cronPattern(said: string): string | undefined {
  if (/^@(yearly|annually|monthly|weekly|daily|hourly)$/i.test(said)) return said.toLowerCase();
  const fields = said.split(' ');
  if (fields.length !== 5 || !fields.slice(0, 3).every((f) => /^[\d*/,\-?LW#]+$/i.test(f))) return undefined;
  return said.toUpperCase();
}

const WEEKDAYS: Readonly<Record<string, number>> = {
  sun: 0,
  sunday: 0,
  mon: 1,
  monday: 1,
  tue: 2,
  tues: 2,
  tuesday: 2,
  wed: 3,
  wednesday: 3,
  thu: 4,
  thur: 4,
  thurs: 4,
  thursday: 4,
  fri: 5,
  friday: 5,
  sat: 6,
  saturday: 6,
};

/** "every weekday at 9", "every Friday at 17:00", "daily at 8:30", "every 2 hours", "every month on the 1st at 9". */
function repetition(said: string): string | undefined {
  const shorthand: Record<string, string> = { daily: 'day', weekdays: 'weekday', hourly: 'hour' };
  const match = /^(?:(?:every|each) (.+?)|(daily|weekdays|hourly))(?:,? (?:at )?(\d{1,2}(?::\d{2})? ?(?:am|pm)?|noon|midnight))?$/.exec(said);
  if (!match) return undefined;
  const days = match[1] ?? shorthand[match[2]!]!;
  const time = match[3] === undefined ? { hour: DEFAULT_HOUR, minute: 0 } : timeOfDay(match[3]);
  if (!time) return undefined;
  const every = /^(\d{1,3}) (minute|hour)s?$/.exec(days);
  if (every || days === 'hour') {
    if (match[3] !== undefined) return undefined;
    const n = every ? Number(every[1]) : 1;
    const unit = every ? every[2] : 'hour';
    if (n < 1 || (unit === 'minute' && n >= 60) || (unit === 'hour' && n >= 24)) return undefined;
    return unit === 'minute' ? `*/${n} * * * *` : `0 */${n} * * *`;
  }
  const at = `${time.minute} ${time.hour}`;
  const monthly = /^month on the (\d{1,2})(?:st|nd|rd|th)?$/.exec(days);
  if (monthly) {
    const day = Number(monthly[1]);
    return day >= 1 && day <= 31 ? `${at} ${day} * *` : undefined;
  }
  const dow = daysOfWeek(days);
  return dow === undefined ? undefined : `${at} * * ${dow}`;
}

function daysOfWeek(days: string): string | undefined {
  if (days === 'day') return '*';
  if (days === 'weekday' || days === 'working day') return '1-5';
  if (days === 'weekend' || days === 'weekend day') return '0,6';
  const names = days.split(/ ?, ?| and | ?& ?/);
  const numbers = new Set<number>();
  for (const name of names) {
    const day = WEEKDAYS[name.replace(/s$/, '')] ?? WEEKDAYS[name];
    if (day === undefined) return undefined;
    numbers.add(day);
  }
  return [...numbers].sort((a, b) => a - b).join(',');
}

function timeOfDay(text: string): { hour: number; minute: number } | undefined {
  if (text === 'noon') return { hour: 12, minute: 0 };
  if (text === 'midnight') return { hour: 0, minute: 0 };
  const match = /^(\d{1,2})(?::(\d{2}))? ?(am|pm)?$/.exec(text);
  if (!match) return undefined;
  let hour = Number(match[1]);
  const minute = Number(match[2] ?? 0);
  if (minute > 59) return undefined;
  if (match[3]) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (match[3] === 'pm' ? 12 : 0);
  } else if (hour > 23) return undefined;
  return { hour, minute };
}

/** A one-off time through chrono, read on the zone's wall clock so that "tomorrow" and "9am" mean the user's. */
function oneOff(said: string, { now, timezone }: { now: number; timezone: string }): number {
  const wallNow = wallClock(now, timezone);
  const [result] = chrono.parse(said, { instant: new Date(wallNow), timezone: 0 }, { forwardDate: true });
  if (!result) throw unreadable(said);
  const start = result.start;
  let at: number;
  const ahead = start.date().getTime() - wallNow;
  const relative = result.tags().has('result/relativeDate');
  if (relative && ahead < DAY_MS) {
    // "in 20 minutes" is a duration from now, whatever the clocks do meanwhile; "in 2 days" is a time of day.
    at = now + ahead;
  } else if (!relative && start.isCertain('timezoneOffset')) {
    at = start.date().getTime();
  } else {
    // "in 2 days" keeps the time of day it was said at; a bare date ("tomorrow") means DEFAULT_HOUR.
    const timed = relative || start.isCertain('hour');
    const wall = Date.UTC(
      start.get('year')!,
      start.get('month')! - 1,
      start.get('day')!,
      timed ? start.get('hour')! : DEFAULT_HOUR,
      timed ? (start.get('minute') ?? 0) : 0,
      timed ? (start.get('second') ?? 0) : 0,
    );
    at = instantOf(wall, timezone);
  }
  if (at <= now) throw new ScheduleError('That time has passed.', 'past');
  return at;
}
