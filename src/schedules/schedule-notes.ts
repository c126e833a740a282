/** The lines a creator is told privately about their schedule's runs; one place, the same on every platform. */

import type { Schedule } from './schedule.ts';
import { formatWhen } from './zone-time.ts';

const NOUNS: Readonly<Record<Schedule['kind'], string>> = { reminder: 'reminder', prompt: 'scheduled prompt', summary: 'scheduled summary' };

/** `reminder “stand-up notes” (a1b2c3)`: how a note names a schedule. */
export function scheduleName(schedule: Schedule): string {
  const text = schedule.text.length > 60 ? `${schedule.text.slice(0, 59)}…` : schedule.text;
  return `${NOUNS[schedule.kind]}${text ? ` “${text}”` : ''} (${schedule.id})`;
}

function at(schedule: Schedule, time: number): string {
  return `${formatWhen(time, schedule.timezone)} (${schedule.timezone})`;
}

function nextRun(schedule: Schedule, next: number | null): string {
  return next === null ? '' : ` It runs next on ${at(schedule, next)}.`;
}

export function skippedNote(schedule: Schedule, dueAt: number, next: number | null): string {
  return `Your ${scheduleName(schedule)} was due on ${at(schedule, dueAt)} while I was offline, so I skipped it.${nextRun(schedule, next)}`;
}

export function failedNote(schedule: Schedule, dueAt: number, reason: string): string {
  return `Your ${scheduleName(schedule)} could not run on ${at(schedule, dueAt)}: ${reason}`;
}

export function pausedNote(schedule: Schedule, failures: number, reason: string): string {
  return `I paused your ${scheduleName(schedule)} after ${failures} failed runs in a row (the last: ${reason}). Resume it once that is fixed.`;
}

export function interruptedNote(schedule: Schedule, dueAt: number): string {
  return (
    `Your ${scheduleName(schedule)} of ${at(schedule, dueAt)} was interrupted while it was being posted. ` +
    'I did not post it again, so part of it may be missing.'
  );
}
