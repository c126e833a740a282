/**
 * Wall-clock time in an IANA zone, as a "wall" number: the ms since the epoch that a UTC clock showing the same
 * date and time would have. Converting back handles daylight-saving changes the way schedules need them.
 */
import { wallClock, zoneFormats, zoneParts } from '../conversation/clock.ts';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/**
 * The instant the zone's clock shows `wall`. A wall time that happens twice (clocks going back) is its first
 * instant; one that does not exist that day (clocks going forward) becomes the first valid minute after the gap.
 */
export function instantOf(wall: number, timeZone: string): number {
  // The offsets in force well before and well after any change near `wall` (changes are never 26 hours apart).
  const early = wall - (wallClock(wall - 13 * HOUR_MS, timeZone) - (wall - 13 * HOUR_MS));
  const late = wall - (wallClock(wall + 13 * HOUR_MS, timeZone) - (wall + 13 * HOUR_MS));
  const candidates = [early, late].filter((t) => wallClock(t, timeZone) === wall).sort((a, b) => a - b);
  if (candidates.length > 0) return candidates[0]!;
  // In the gap: the first minute whose wall time is past `wall` is where the clock jumped to.
  let low = Math.min(early, late);
  let high = Math.max(early, late);
  while (high - low > MINUTE_MS) {
    const middle = low + Math.floor((high - low) / 2 / MINUTE_MS) * MINUTE_MS;
    if (wallClock(middle, timeZone) > wall) high = middle;
    else low = middle;
  }
  return wallClock(low, timeZone) > wall ? low : high;
}

const whenFormat = zoneFormats('en-GB', {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
  timeZoneName: 'short',
});

/**
 * "Fri 27 Nov, 09:00 CET" in the zone, with the year ("Fri 27 Nov 2027, 09:00 CET") when it is not `now`'s there:
 * how a user is told when something happens, everywhere.
 */
export function formatWhen(instant: number, timeZone: string, now: number): string {
  const part: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const p of whenFormat(timeZone).formatToParts(instant)) part[p.type] = p.value;
  const year = Number(part.year) === zoneParts(now, timeZone).year ? '' : ` ${part.year}`;
  return `${part.weekday} ${part.day} ${part.month}${year}, ${part.hour}:${part.minute} ${part.timeZoneName}`;
}
