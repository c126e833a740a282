import type { Logger } from '../log/logger.ts';
import type { Lease } from './conversation-lock.ts';

/** Runs `work` with the conversation's store lock given up (see Lease.stepAside), taken again before it returns. */
export type StepAside = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * Steps a lease aside for as long as any of the works given runs (a round's tool calls may wait on approvals
 * together): given up when the first starts, taken again when the last ends. A store that cannot give the lock up
 * leaves it held, which only keeps other instances waiting longer.
 */
export function stepAsideWhile(lease: Lease, holdMs: number, signal: AbortSignal, logger: Logger): StepAside {
  let inside = 0;
  let turn: Promise<unknown> = Promise.resolve();
  let resume: (() => Promise<void>) | undefined;
  return async (work) => {
    if (inside++ === 0) {
      turn = turn.then(async () => {
        resume = await lease.stepAside(holdMs, signal).catch((error: unknown) => {
          logger.warn({ err: error }, 'could not give the conversation lock up while waiting; it stays held');
          return undefined;
        });
      });
    }
    await turn;
    try {
      return await work();
    } finally {
      if (--inside === 0) {
        const taking = turn.then(() => {
          const takeAgain = resume;
          resume = undefined;
          return takeAgain?.();
        });
        turn = taking.catch(() => {});
        await taking;
      }
    }
  };
}
