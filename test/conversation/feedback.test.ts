import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AnswerFeedback, type FeedbackVote } from '../../src/conversation/feedback.ts';
import { createMetrics } from '../../src/ops/metrics.ts';
import type { Store } from '../../src/store/store.ts';
import { removeTempDirs, storeBackends } from '../store/backends.ts';

const backends = await storeBackends();

describe.each(backends)('votes on answers ($name store)', (backend) => {
  const opened: Store[] = [];
  const open = async () => {
    const store = await backend.open();
    opened.push(store);
    return store;
  };

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });

  afterAll(() => removeTempDirs());

  /** A workspace of its own, so tests sharing a Redis server never meet. */
  const vote = (workspaceId: string, userId: string, rating: FeedbackVote['rating'], answerId = 'C1:1700000000.000100/ab12'): FeedbackVote => ({
    platform: 'slack',
    workspaceId,
    answerId,
    userId,
    rating,
  });

  it.skipIf(backend.skip)(`one vote per person per answer, which they may change${backend.skip ? ` — skipped: ${backend.skip}` : ''}`, async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const feedback = new AnswerFeedback(await open(), { counter: metrics.feedback });
    const team = randomUUID();
    expect(await feedback.record(vote(team, 'U1', 'positive'))).toBe('recorded');
    expect(await feedback.record(vote(team, 'U1', 'positive'))).toBe('unchanged');
    expect(await feedback.record(vote(team, 'U1', 'negative'))).toBe('changed');
    expect(await feedback.record(vote(team, 'U2', 'positive'))).toBe('recorded');
    expect(await feedback.record(vote(team, 'U2', 'positive', 'C1:1700000000.000200/cd34'))).toBe('recorded');
    expect(await feedback.counts('slack', team)).toEqual({ positive: 2, negative: 1 });
    expect(await feedback.counts('slack', randomUUID())).toEqual({ positive: 0, negative: 0 });
    expect(await feedback.counts('discord', team)).toEqual({ positive: 0, negative: 0 });
    const scraped = await metrics.registry.metrics();
    expect(scraped).toContain('herald_feedback_total{platform="slack",rating="positive"} 3');
    expect(scraped).toContain('herald_feedback_total{platform="slack",rating="negative"} 1');
  });

  if (backend.openTwin) {
    it.skipIf(backend.skip)('the same person pressing on two instances at once counts once', async () => {
      const first = await open();
      const second = await backend.openTwin!(first);
      opened.push(second);
      const team = randomUUID();
      const here = new AnswerFeedback(first);
      const there = new AnswerFeedback(second);
      const outcomes = await Promise.all([
        here.record(vote(team, 'U1', 'positive')),
        there.record(vote(team, 'U1', 'positive')),
        here.record(vote(team, 'U1', 'positive')),
        there.record(vote(team, 'U1', 'positive')),
      ]);
      expect(outcomes.filter((o) => o === 'recorded')).toHaveLength(1);
      expect(await here.counts('slack', team)).toEqual({ positive: 1, negative: 0 });
    });
  }

  it.skipIf(backend.skip)('refuses an answer id that is not one (from a tampered button value)', async () => {
    const feedback = new AnswerFeedback(await open());
    const team = randomUUID();
    for (const answerId of ['', 'a'.repeat(201), 'C1:1 2', 'x\ny', 'C1:<!channel>']) {
      await expect(feedback.record(vote(team, 'U1', 'positive', answerId))).rejects.toThrow(RangeError);
    }
    expect(await feedback.counts('slack', team)).toEqual({ positive: 0, negative: 0 });
  });
});
