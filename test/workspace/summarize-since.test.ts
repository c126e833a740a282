import { describe, expect, it } from 'vitest';
import { parseSince } from '../../src/workspace/summarize-since.ts';

const now = new Date('2025-01-14T10:00:00Z');
const since = (text: string, at = now, zone = 'Europe/Berlin') => {
  const ms = parseSince(text, at, zone);
  return ms === undefined ? undefined : new Date(ms).toISOString();
};

describe('parseSince', () => {
  it('reads durations back from now', () => {
    expect(since('2h')).toBe('2025-01-14T08:00:00.000Z');
    expect(since('30m')).toBe('2025-01-14T09:30:00.000Z');
    expect(since(' 1 d ')).toBe('2025-01-13T10:00:00.000Z');
    expect(since('1w')).toBe('2025-01-07T10:00:00.000Z');
  });

  it('reads today and yesterday from midnight in the operator’s zone, across a DST change', () => {
    expect(since('today')).toBe('2025-01-13T23:00:00.000Z');
    expect(since('Yesterday')).toBe('2025-01-12T23:00:00.000Z');
    const afterSpringForward = new Date('2025-03-09T18:00:00Z');
    expect(since('today', afterSpringForward, 'America/New_York')).toBe('2025-03-09T05:00:00.000Z');
    expect(since('yesterday', new Date('2025-03-10T18:00:00Z'), 'America/New_York')).toBe('2025-03-09T05:00:00.000Z');
  });

  it('reads a time of day as the last time it was that time', () => {
    expect(since('9:00')).toBe('2025-01-14T08:00:00.000Z');
    expect(since('09:30')).toBe('2025-01-14T08:30:00.000Z');
    expect(since('9am')).toBe('2025-01-14T08:00:00.000Z');
    expect(since('17:30')).toBe('2025-01-13T16:30:00.000Z');
    expect(since('5pm')).toBe('2025-01-13T16:00:00.000Z');
    expect(since('12am')).toBe('2025-01-13T23:00:00.000Z');
  });

  it('refuses anything else', () => {
    for (const text of ['', 'soon', '9', '25:00', '9:75', '13pm', '2 hours ago', '99999h', 'yesterday 9:00']) expect(since(text)).toBeUndefined();
  });
});
