/** Calendar arithmetic in an IANA time zone (the deployment's TZ), DST-safe. */

// Building an Intl.DateTimeFormat costs about 70 µs, using one about 6: every reply needs several, so keep one per zone.
const partsFormats = new Map<string, Intl.DateTimeFormat>();
const longDateFormats = new Map<string, Intl.DateTimeFormat>();

function formatFor(cache: Map<string, Intl.DateTimeFormat>, timeZone: string, make: () => Intl.DateTimeFormat): Intl.DateTimeFormat {
  let format = cache.get(timeZone);
  if (!format) {
    format = make();
    cache.set(timeZone, format);
  }
  return format;
}

function parts(date: Date, timeZone: string): Record<string, number> {
  const format = formatFor(
    partsFormats,
    timeZone,
    () =>
      new Intl.DateTimeFormat('en-US', {
        timeZone,
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        hourCycle: 'h23',
      }),
  );
  const out: Record<string, number> = {};
  for (const p of format.formatToParts(date)) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return out;
}

/** How far the zone's wall clock is ahead of UTC at `date`, in ms. */
function offsetMs(date: Date, timeZone: string): number {
  const p = parts(date, timeZone);
  const wall = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return wall - Math.floor(date.getTime() / 1000) * 1000;
}

/** `YYYY-MM-DD` of `date` in the zone: the day a daily counter belongs to. */
export function dayKey(date: Date, timeZone: string): string {
  const p = parts(date, timeZone);
  return `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** The instant of the next midnight in the zone after `date`. */
export function nextMidnight(date: Date, timeZone: string): Date {
  const p = parts(date, timeZone);
  const wallMidnight = Date.UTC(p.year!, p.month! - 1, p.day! + 1);
  // The offset at midnight may differ from the one now (DST); two passes settle it.
  let guess = wallMidnight - offsetMs(date, timeZone);
  guess = wallMidnight - offsetMs(new Date(guess), timeZone);
  return new Date(guess);
}

/** "Tuesday, 14 January 2025" in the zone. */
export function longDate(date: Date, timeZone: string): string {
  const format = formatFor(
    longDateFormats,
    timeZone,
    () => new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }),
  );
  return format.format(date);
}

/** "42 s", "3 min", "5 h 12 min": short, rounded up, for "try again in …". */
export function humanDuration(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}
