import { nextMidnight } from '../conversation/clock.ts';

const HOUR_MS = 3_600_000;
const UNIT_MS: Record<string, number> = { m: 60_000, min: 60_000, h: HOUR_MS, d: 24 * HOUR_MS, w: 7 * 24 * HOUR_MS };

/** Midnight at the start of the day `date` is in, in the zone. */
function startOfDay(date: Date, timeZone: string): Date {
  // Noon of the day before, give or take a DST hour, is always in that day: its next midnight starts this one.
  return nextMidnight(new Date(nextMidnight(date, timeZone).getTime() - 36 * HOUR_MS), timeZone);
}

/**
 * When a summary asked "since" `text` starts, in ms since the epoch; undefined when the text is not one of: a duration
 * back from now (`30m`, `2h`, `1d`, `1w`), `today`, `yesterday` (from its midnight), or a time of day (`9:00`,
 * `17:30`, `9am`), the last such time that has passed, in the operator's zone.
 */
export function parseSince(text: string, now: Date, timeZone: string): number | undefined {
  const given = text.trim().toLowerCase();
  const duration = /^(\d{1,4})\s*(m|min|h|d|w)$/.exec(given);
  if (duration) return now.getTime() - Number(duration[1]) * UNIT_MS[duration[2]!]!;
  const today = startOfDay(now, timeZone);
  if (given === 'today') return today.getTime();
  if (given === 'yesterday') return startOfDay(new Date(today.getTime() - 12 * HOUR_MS), timeZone).getTime();
  const clock = /^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$/.exec(given);
  if (!clock || (clock[2] === undefined && clock[3] === undefined)) return undefined;
  let hour = Number(clock[1]);
  const minute = Number(clock[2] ?? 0);
  if (clock[3] !== undefined) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (clock[3] === 'pm' ? 12 : 0);
  }
  if (hour > 23 || minute > 59) return undefined;
  const at = today.getTime() + hour * HOUR_MS + minute * 60_000;
  return at <= now.getTime() ? at : at - 24 * HOUR_MS;
}
