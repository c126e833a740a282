import { describe, expect, it } from 'vitest';
import { RateBudget } from '../../adapters/slack/rate-budget.ts';

function clock() {
  let now = 0;
  return {
    now: () => now,
    sleep: async (ms: number) => {
      now += ms;
    },
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('RateBudget', () => {
  it('never lets a tier-3 method exceed 50 calls in any rolling minute', async () => {
    const time = clock();
    const budget = new RateBudget({ now: time.now, sleep: time.sleep });
    const calls: number[] = [];
    for (let i = 0; i < 200; i++) {
      await budget.take('chat.update');
      calls.push(time.now());
    }
    for (const [i, at] of calls.entries()) {
      const inWindow = calls.slice(i).filter((t) => t < at + 60_000).length;
      expect(inWindow).toBeLessThanOrEqual(50);
    }
    // Paced, not stalled: after the burst of 10, 40 a minute — 190 calls in under five minutes.
    expect(time.now()).toBeLessThan(5 * 60_000);
  });

  it('paces chat.postMessage per channel: a burst, then about one a second', async () => {
    const time = clock();
    const budget = new RateBudget({ now: time.now, sleep: time.sleep });
    for (let i = 0; i < 3; i++) {
      expect(budget.waitMs('chat.postMessage', 'C1')).toBe(0);
      await budget.take('chat.postMessage', 'C1');
    }
    expect(budget.waitMs('chat.postMessage', 'C1')).toBe(1000);
    expect(budget.waitMs('chat.postMessage', 'C2')).toBe(0);
    await budget.take('chat.postMessage', 'C1');
    expect(time.now()).toBe(1000);
  });

  it('takes a group of methods together or not at all', () => {
    const time = clock();
    const budget = new RateBudget({ now: time.now, methods: { a: { burst: 1, perSecond: 1 }, b: { burst: 2, perSecond: 1 } } });
    expect(budget.tryTake(['a', 'b'])).toBe(true);
    expect(budget.tryTake(['a', 'b'])).toBe(false);
    expect(budget.tryTake(['b'])).toBe(true);
    expect(budget.tryTake(['b'])).toBe(false);
    time.advance(1000);
    expect(budget.tryTake(['a', 'b'])).toBe(true);
  });

  it('keeps a reserved call for its holder: others are refused it, the holder takes it at once, and calls stay within the tier', async () => {
    const time = clock();
    const budget = new RateBudget({ now: time.now, sleep: time.sleep, methods: { 'chat.update': { burst: 2, perSecond: 1 / 60 } } });
    expect(budget.reserve('chat.update')).toBe(true);
    expect(budget.tryTake(['chat.update'])).toBe(true);
    expect(budget.tryTake(['chat.update'])).toBe(false);
    expect(budget.reserve('chat.update')).toBe(false);
    await budget.takeReserved('chat.update');
    expect(time.now()).toBe(0);
    expect(budget.tryTake(['chat.update'])).toBe(false);
    time.advance(60_000);
    expect(budget.reserve('chat.update')).toBe(true);
    budget.release('chat.update');
    expect(budget.tryTake(['chat.update'], undefined, 1)).toBe(false);
    expect(budget.tryTake(['chat.update'])).toBe(true);
  });

  it('leaves methods without a known limit alone', () => {
    const budget = new RateBudget();
    for (let i = 0; i < 1000; i++) expect(budget.tryTake(['auth.test'])).toBe(true);
  });
});
