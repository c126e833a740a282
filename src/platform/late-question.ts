import { HeraldError } from '../errors.ts';

/** A question Herald gets to later than this after it was asked is refused rather than answered as if on time. */
const LATE_QUESTION_MS = 30_000;

function ago(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} seconds`;
  const minutes = Math.round(seconds / 60);
  return minutes < 120 ? `${minutes} minutes` : `${Math.round(minutes / 60)} hours`;
}

/**
 * Throws when an answer would start long after its question was asked (the store back after a stall, an event
 * delivered late), so that the asker hears why instead of getting a reply that looks like a fresh one.
 */
export function refuseIfLate(sentAt: number, now: number = Date.now()): void {
  const late = now - sentAt;
  if (late <= LATE_QUESTION_MS) return;
  throw new HeraldError(
    `Sorry, I only got to this ${ago(late)} after you asked, so I'm not answering it this late. Please ask again if you still need it.`,
    { code: 'too_late' },
  );
}
