import { MAX_DECODE_PIXELS } from './image/image-limits.ts';

// The one process-wide budget for media work (decoding images, audio and PDFs), counted in pixels of decoded
// picture: a job takes its share before it allocates and gives it back when done, so however many files arrive
// at once, the work in progress never holds more than one maximal decode. Jobs start in arrival order.

/** The whole budget: also the share of a job that cannot say how much it will decode (a PDF's pages). */
export const MEDIA_BUDGET = MAX_DECODE_PIXELS;

/** The smallest share a job takes, so that even tiny jobs are bounded in number. */
const MIN_SHARE = MEDIA_BUDGET / 16;

interface Waiter {
  share: number;
  start: () => void;
}

let inUse = 0;
const queue: Waiter[] = [];

function startWaiting(): void {
  while (queue.length > 0 && inUse + queue[0]!.share <= MEDIA_BUDGET) {
    const next = queue.shift()!;
    inUse += next.share;
    next.start();
  }
}

/** Runs `job` once `weight` (pixels, or their equivalent in memory) of the budget is free. */
export async function withMediaBudget<T>(weight: number, job: () => Promise<T>): Promise<T> {
  const share = Math.min(MEDIA_BUDGET, Math.max(MIN_SHARE, Math.ceil(weight)));
  await new Promise<void>((start) => {
    queue.push({ share, start });
    startWaiting();
  });
  try {
    return await job();
  } finally {
    inUse -= share;
    startWaiting();
  }
}

/** Budget in use and jobs waiting, for the tests. */
export function mediaBudgetState(): { inUse: number; waiting: number } {
  return { inUse, waiting: queue.length };
}
