/** Calendar arithmetic in an IANA time zone (the deployment's TZ), DST-safe. */

/**
 * One format per zone, made on first use: building an Intl.DateTimeFormat costs about 70 µs, using one about 6, and
 * every reply needs several.
 */
export function zoneFormats(locale: string, options: Omit<Intl.DateTimeFormatOptions, 'timeZone'>): (timeZone: string) => Intl.DateTimeFormat {
  const formats = new Map<string, Intl.DateTimeFormat>();
  return (timeZone) => {
    let format = formats.get(timeZone);
    if (!format) {
      format = new Intl.DateTimeFormat(locale, { ...options, timeZone });
      formats.set(timeZone, format);
    }
    return format;
  };
}

const partsFormat = zoneFormats('en-US', {
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
  hourCycle: 'h23',
});

/** The zone's calendar date and wall-clock time at `instant`, to the second, as numbers by part name. */
export function zoneParts(instant: Date | number, timeZone: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of partsFormat(timeZone).formatToParts(instant)) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return out;
}

/**
 * The zone's wall clock at `instant`, as a "wall" number: the ms since the epoch a UTC clock showing the same date and
 * time would have (whole seconds; the milliseconds carried over).
 */
export function wallClock(instant: number, timeZone: string): number {
  const p = zoneParts(instant, timeZone);
  const ms = ((instant % 1000) + 1000) % 1000;
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) + ms;
}

/** `YYYY-MM-DD` of `date` in the zone: the day a daily counter belongs to. */
export function dayKey(date: Date, timeZone: string): string {
  const p = zoneParts(date, timeZone);
  return `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** The instant of the next midnight in the zone after `date`. */
export function nextMidnight(date: Date, timeZone: string): Date {
  const p = zoneParts(date, timeZone);
  const wallMidnight = Date.UTC(p.year!, p.month! - 1, p.day! + 1);
  // The offset at midnight may differ from the one now (DST); two passes settle it.
  let guess = wallMidnight - (wallClock(date.getTime(), timeZone) - date.getTime());
  guess = wallMidnight - (wallClock(guess, timeZone) - guess);
  return new Date(guess);
}

const longDateFormat = zoneFormats('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });

/** "Tuesday, 14 January 2025" in the zone. */
export function longDate(date: Date, timeZone: string): string {
  return longDateFormat(timeZone).format(date);
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
