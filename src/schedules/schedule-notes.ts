/** The lines a creator is told privately about their schedule's runs; one place, the same on every platform. */

import type { Schedule } from './schedule.ts';
import { formatWhen } from './zone-time.ts';

const NOUNS: Readonly<Record<Schedule['kind'], string>> = { reminder: 'reminder', prompt: 'scheduled prompt', summary: 'scheduled summary' };

/** `reminder “stand-up notes” (a1b2c3)`: how a note names a schedule. */
export function scheduleName(schedule: Schedule): string {
  const text = schedule.text.length > 60 ? `${schedule.text.slice(0, 59)}…` : schedule.text;
  return `${NOUNS[schedule.kind]}${text ? ` “${text}”` : ''} (${schedule.id})`;
}

export function skippedNote(schedule: Schedule, dueAt: number, next: number | null, now: number): string {
  const again = next === null ? '' : ` It runs next on ${formatWhen(next, schedule.timezone, now)}.`;
  return `Your ${scheduleName(schedule)} was due on ${formatWhen(dueAt, schedule.timezone, now)} while I was offline, so I skipped it.${again}`;
}

export function failedNote(schedule: Schedule, dueAt: number, reason: string, now: number): string {
  return `Your ${scheduleName(schedule)} could not run on ${formatWhen(dueAt, schedule.timezone, now)}: ${reason}`;
}

export function pausedNote(schedule: Schedule, failures: number, reason: string): string {
  return `I paused your ${scheduleName(schedule)} after ${failures} failed runs in a row (the last: ${reason}). Resume it once that is fixed.`;
}

export function interruptedNote(schedule: Schedule, dueAt: number, now: number): string {
  return (
    `Your ${scheduleName(schedule)} of ${formatWhen(dueAt, schedule.timezone, now)} was interrupted while it was being posted. ` +
    'I did not post it again, so part of it may be missing.'
  );
}
