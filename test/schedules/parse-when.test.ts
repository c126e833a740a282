import { describe, expect, it } from 'vitest';
import { nextOccurrence, parseWhen } from '../../src/schedules/parse-when.ts';
import { ScheduleError } from '../../src/schedules/schedule-error.ts';
import { formatWhen } from '../../src/schedules/zone-time.ts';

const BERLIN = 'Europe/Berlin';
const NEW_YORK = 'America/New_York';
const at = (iso: string) => Date.parse(iso);
/** Thursday 26 November 2026, 17:30 in Berlin. */
const now = at('2026-11-26T16:30:00Z');

function refusal(text: string, options = { now, timezone: BERLIN }): ScheduleError {
  try {
    parseWhen(text, options);
  } catch (error) {
    expect(error).toBeInstanceOf(ScheduleError);
    return error as ScheduleError;
  }
  throw new Error(`"${text}" was read as a time`);
}

describe('parseWhen', () => {
  it('reads one-off times on the user’s wall clock', () => {
    const berlin = { now, timezone: BERLIN };
    expect(parseWhen('in 20 minutes', berlin)).toEqual({ type: 'once', at: now + 20 * 60_000 });
    expect(parseWhen('tomorrow 9am', berlin)).toEqual({ type: 'once', at: at('2026-11-27T08:00:00Z') });
    expect(parseWhen('next Monday 10:00', berlin)).toEqual({ type: 'once', at: at('2026-11-30T09:00:00Z') });
    expect(parseWhen('  Tomorrow   at 9  ', berlin)).toEqual({ type: 'once', at: at('2026-11-27T08:00:00Z') });
    // A day without a time is that day at 9; a time already past today is tomorrow's.
    expect(parseWhen('tomorrow', berlin)).toEqual({ type: 'once', at: at('2026-11-27T08:00:00Z') });
    expect(parseWhen('9:00', berlin)).toEqual({ type: 'once', at: at('2026-11-27T08:00:00Z') });
    expect(parseWhen('tomorrow 9am', { now, timezone: NEW_YORK })).toEqual({ type: 'once', at: at('2026-11-27T14:00:00Z') });
    // An explicit zone wins over the user's.
    expect(parseWhen('tomorrow 9am PST', berlin)).toEqual({ type: 'once', at: at('2026-11-27T17:00:00Z') });
  });

  it('tells times in the zone, with its abbreviation, and the year only when it is not this year there', () => {
    expect(formatWhen(at('2026-11-27T08:00:00Z'), BERLIN, now)).toBe('Fri 27 Nov, 09:00 CET');
    expect(formatWhen(at('2026-07-03T07:05:00Z'), BERLIN, now)).toBe('Fri 3 Jul, 09:05 CEST');
    expect(formatWhen(at('2027-01-01T00:00:00Z'), BERLIN, now)).toBe('Fri 1 Jan 2027, 01:00 CET');
    expect(formatWhen(at('2027-01-01T00:00:00Z'), NEW_YORK, now)).toBe('Thu 31 Dec, 19:00 GMT-5');
    // New Year's Eve at 15:30 UTC: already 2027 in Tokyo, still 2026 in Berlin.
    const newYearsEve = at('2026-12-31T15:30:00Z');
    expect(formatWhen(at('2026-12-31T23:30:00Z'), 'Asia/Tokyo', newYearsEve)).toBe('Fri 1 Jan, 08:30 GMT+9');
    expect(formatWhen(at('2026-12-31T23:30:00Z'), BERLIN, newYearsEve)).toBe('Fri 1 Jan 2027, 00:30 CET');
  });

  it('reads repetitions and cron patterns as croner patterns, with their first time after now', () => {
    const berlin = { now, timezone: BERLIN };
    expect(parseWhen('every weekday at 9', berlin)).toEqual({ type: 'recurring', pattern: '0 9 * * 1-5', first: at('2026-11-27T08:00:00Z') });
    expect(parseWhen('Every Friday at 17:00', berlin)).toEqual({ type: 'recurring', pattern: '0 17 * * 5', first: at('2026-11-27T16:00:00Z') });
    expect(parseWhen('every day at 8:30', berlin)).toEqual({ type: 'recurring', pattern: '30 8 * * *', first: at('2026-11-27T07:30:00Z') });
    expect(parseWhen('daily at 6pm', berlin)).toEqual({ type: 'recurring', pattern: '0 18 * * *', first: at('2026-11-26T17:00:00Z') });
    expect(parseWhen('every Monday and Wednesday at noon', berlin)).toMatchObject({ pattern: '0 12 * * 1,3', first: at('2026-11-30T11:00:00Z') });
    expect(parseWhen('every month on the 1st at 9', berlin)).toMatchObject({ pattern: '0 9 1 * *', first: at('2026-12-01T08:00:00Z') });
    expect(parseWhen('every 2 hours', berlin)).toMatchObject({ pattern: '0 */2 * * *', first: at('2026-11-26T17:00:00Z') });
    expect(parseWhen('30 8 * * mon-fri', berlin)).toEqual({ type: 'recurring', pattern: '30 8 * * MON-FRI', first: at('2026-11-27T07:30:00Z') });
    expect(parseWhen('@daily', berlin)).toMatchObject({ pattern: '@daily', first: at('2026-11-26T23:00:00Z') });
    expect(parseWhen('every weekday at 9', { now, timezone: NEW_YORK })).toMatchObject({ first: at('2026-11-27T14:00:00Z') });
  });

  it('refuses what it cannot read, what has passed, never happens or repeats too often', () => {
    expect(refusal('whenever you like')).toMatchObject({ code: 'unparseable', kind: 'invalid_input' });
    expect(refusal('every blue moon').code).toBe('unparseable');
    expect(refusal('every Funday at 9').code).toBe('unparseable');
    expect(refusal('every day at 25:00').code).toBe('unparseable');
    expect(refusal('').code).toBe('unparseable');
    expect(refusal('in 5 minutes '.repeat(20)).code).toBe('unparseable');
    expect(refusal('0 0 30 2 *').message).toBe('"0 0 30 2 *" never happens.');
    expect(refusal('yesterday 9am')).toMatchObject({ code: 'past', message: 'That time has passed.' });
    expect(refusal('2020-01-01 10:00').message).toBe('That time has passed.');
    expect(refusal('every 5 minutes').code).toBe('too_frequent');
    expect(refusal('* * * * *').code).toBe('too_frequent');
    expect(refusal('whenever').message).toContain('every weekday at 9');
  });

  it('runs a time that does not exist at the next valid minute, and one that happens twice once (Berlin)', () => {
    // Clocks go forward at 02:00 on 29 March 2026 and back at 03:00 on 25 October 2026.
    const spring = { now: at('2026-03-28T12:00:00Z'), timezone: BERLIN };
    expect(parseWhen('tomorrow 2:30', spring)).toEqual({ type: 'once', at: at('2026-03-29T01:00:00Z') });
    const autumn = { now: at('2026-10-24T12:00:00Z'), timezone: BERLIN };
    expect(parseWhen('tomorrow 2:30', autumn)).toEqual({ type: 'once', at: at('2026-10-25T00:30:00Z') });
    // A duration is a duration across the change; days keep the time of day.
    expect(parseWhen('in 2 days', { now: at('2026-03-27T11:00:00Z'), timezone: BERLIN })).toEqual({ type: 'once', at: at('2026-03-29T10:00:00Z') });
    expect(parseWhen('in 20 minutes', { now: at('2026-03-29T00:50:00Z'), timezone: BERLIN })).toEqual({
      type: 'once',
      at: at('2026-03-29T01:10:00Z'),
    });

    const daily = parseWhen('every day at 2:30', spring);
    expect(daily).toEqual({ type: 'recurring', pattern: '30 2 * * *', first: at('2026-03-29T01:00:00Z') });
    expect(nextOccurrence('30 2 * * *', BERLIN, at('2026-03-29T01:00:00Z'))).toBe(at('2026-03-30T00:30:00Z'));
    const first = nextOccurrence('30 2 * * *', BERLIN, autumn.now)!;
    expect(first).toBe(at('2026-10-25T00:30:00Z'));
    expect(nextOccurrence('30 2 * * *', BERLIN, first)).toBe(at('2026-10-26T01:30:00Z'));
  });

  it('does the same in New York', () => {
    // Clocks go forward at 02:00 on 8 March 2026 and back at 02:00 on 1 November 2026.
    const spring = { now: at('2026-03-07T17:00:00Z'), timezone: NEW_YORK };
    expect(parseWhen('tomorrow 2:30am', spring)).toEqual({ type: 'once', at: at('2026-03-08T07:00:00Z') });
    expect(parseWhen('every day at 2:30', spring)).toMatchObject({ first: at('2026-03-08T07:00:00Z') });
    expect(nextOccurrence('30 2 * * *', NEW_YORK, at('2026-03-08T07:00:00Z'))).toBe(at('2026-03-09T06:30:00Z'));
    const autumn = { now: at('2026-10-31T17:00:00Z'), timezone: NEW_YORK };
    expect(parseWhen('tomorrow 1:30am', autumn)).toEqual({ type: 'once', at: at('2026-11-01T05:30:00Z') });
    const first = nextOccurrence('30 1 * * *', NEW_YORK, autumn.now)!;
    expect(first).toBe(at('2026-11-01T05:30:00Z'));
    expect(nextOccurrence('30 1 * * *', NEW_YORK, first)).toBe(at('2026-11-02T06:30:00Z'));
  });
});
