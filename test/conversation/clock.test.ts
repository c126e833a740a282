import { describe, expect, it } from 'vitest';
import { dayKey, humanDuration, longDate, nextMidnight } from '../../src/conversation/clock.ts';

describe('clock', () => {
  it('names the day in the configured zone, not UTC', () => {
    const lateUtc = new Date('2025-01-14T23:30:00Z');
    expect(dayKey(lateUtc, 'UTC')).toBe('2025-01-14');
    expect(dayKey(lateUtc, 'Europe/Berlin')).toBe('2025-01-15');
    expect(dayKey(lateUtc, 'America/Los_Angeles')).toBe('2025-01-14');
    expect(longDate(lateUtc, 'Europe/Berlin')).toBe('Wednesday, 15 January 2025');
    expect(longDate(lateUtc, 'Asia/Tokyo')).toBe('Wednesday, 15 January 2025');
  });

  it('finds the next local midnight, across DST changes too', () => {
    expect(nextMidnight(new Date('2025-01-14T10:00:00Z'), 'Europe/Berlin').toISOString()).toBe('2025-01-14T23:00:00.000Z');
    expect(nextMidnight(new Date('2025-01-14T23:30:00Z'), 'Europe/Berlin').toISOString()).toBe('2025-01-15T23:00:00.000Z');
    // The night Berlin moves to summer time (30 March 2025): midnight before the change is still +01:00.
    expect(nextMidnight(new Date('2025-03-29T12:00:00Z'), 'Europe/Berlin').toISOString()).toBe('2025-03-29T23:00:00.000Z');
    expect(nextMidnight(new Date('2025-03-30T12:00:00Z'), 'Europe/Berlin').toISOString()).toBe('2025-03-30T22:00:00.000Z');
    expect(nextMidnight(new Date('2025-11-02T12:00:00Z'), 'America/New_York').toISOString()).toBe('2025-11-03T05:00:00.000Z');
    expect(nextMidnight(new Date('2025-06-01T00:00:00Z'), 'UTC').toISOString()).toBe('2025-06-02T00:00:00.000Z');
  });

  it('writes short durations, rounded up', () => {
    expect(humanDuration(41_200)).toBe('42 s');
    expect(humanDuration(10)).toBe('1 s');
    expect(humanDuration(125_000)).toBe('3 min');
    expect(humanDuration((5 * 60 + 12) * 60_000)).toBe('5 h 12 min');
    expect(humanDuration(2 * 3600_000)).toBe('2 h');
  });
});
