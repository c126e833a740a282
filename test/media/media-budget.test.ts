import { describe, expect, it } from 'vitest';
import { MEDIA_BUDGET, mediaBudgetState, withMediaBudget } from '../../src/media/media-budget.ts';

/** A job that runs until the test lets it finish, recording when it started. */
function heldJob(started: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const job = () => {
    started.push(name);
    return done.then(() => name);
  };
  return { job, finish };
}

/** Lets every job that can start do so (each start is one resolved promise away). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the process-wide media budget', () => {
  it('runs ten maximal decodes one at a time, in the order they came', async () => {
    const started: string[] = [];
    const jobs = Array.from({ length: 10 }, (_, i) => heldJob(started, `bomb ${i}`));
    const results = jobs.map(({ job }) => withMediaBudget(MEDIA_BUDGET, job));
    for (let i = 0; i < 10; i++) {
      await settle();
      expect(started).toEqual(jobs.slice(0, i + 1).map((_, j) => `bomb ${j}`));
      expect(mediaBudgetState()).toEqual({ inUse: MEDIA_BUDGET, waiting: 9 - i });
      jobs[i]!.finish();
    }
    expect(await Promise.all(results)).toEqual(jobs.map((_, i) => `bomb ${i}`));
    expect(mediaBudgetState()).toEqual({ inUse: 0, waiting: 0 });
  });

  it('lets small jobs share the budget, and a large one wait for it whole', async () => {
    const started: string[] = [];
    const small = [heldJob(started, 'photo 1'), heldJob(started, 'photo 2')];
    const large = heldJob(started, 'scan');
    const running = [...small.map(({ job }) => withMediaBudget(MEDIA_BUDGET / 4, job)), withMediaBudget(MEDIA_BUDGET, large.job)];
    await settle();
    expect(started).toEqual(['photo 1', 'photo 2']);
    small[0]!.finish();
    await settle();
    expect(started).toEqual(['photo 1', 'photo 2']);
    small[1]!.finish();
    await settle();
    expect(started).toEqual(['photo 1', 'photo 2', 'scan']);
    large.finish();
    await Promise.all(running);
    expect(mediaBudgetState()).toEqual({ inUse: 0, waiting: 0 });
  });

  it('gives the share back when a job fails', async () => {
    await expect(withMediaBudget(MEDIA_BUDGET, () => Promise.reject(new Error('damaged')))).rejects.toThrow('damaged');
    expect(mediaBudgetState()).toEqual({ inUse: 0, waiting: 0 });
    await expect(withMediaBudget(MEDIA_BUDGET, async () => 'next')).resolves.toBe('next');
  });
});
