import { afterEach, describe, expect, it } from 'vitest';
import { RateBudget, type BucketLimit } from '../../adapters/slack/rate-budget.ts';
import { RedisStore } from '../../src/store/redis-store.ts';
import { TokenLeases } from '../../src/store/token-leases.ts';
import { silentLogger } from '../helpers/logger.ts';
import { mostInWindow } from '../support/rolling-window.ts';
import { reachable, redisUrl, uniqueKey } from '../store/backends.ts';

const redisUp = await reachable(redisUrl);
const opened: RedisStore[] = [];

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

/** Budgets of `count` instances of one workspace, each with its own connection to one Redis. */
async function instances(
  count: number,
  methods: Record<string, BucketLimit>,
  onLease?: (instance: number) => void,
): Promise<{ budgets: RateBudget[]; store: RedisStore; prefix: string }> {
  const prefix = `${uniqueKey('slack-team')}:`;
  const budgets = await Promise.all(
    Array.from({ length: count }, async (_, instance) => {
      const store = await RedisStore.connect(redisUrl);
      opened.push(store);
      const budget = new RateBudget({ methods });
      budget.shareThrough(new TokenLeases({ store, logger: silentLogger, prefix, windowMs: 1000, ttlMs: 200, onLease: () => onLease?.(instance) }));
      return budget;
    }),
  );
  return { budgets, store: opened[0]!, prefix };
}

/**
 * With the burst spent by `other`, `mine`'s reserved final update still goes at once, and then the shared bucket at
 * `key` holds nothing more: the reservation was part of the burst.
 */
async function expectReservedCallAtOnce(at: { mine: RateBudget; other: RateBudget; store: RedisStore; key: string; burst: number }) {
  await at.other.ready(['chat.update']);
  expect(at.other.tryTake(['chat.update'])).toBe(false);
  const before = performance.now();
  await at.mine.takeReserved('chat.update');
  expect(performance.now() - before).toBeLessThan(50);
  const left = await at.store.exchangeTokens(at.key, { capacity: at.burst, refillPerSecond: 0.001, giveBack: 0, want: 1 });
  expect(left.granted).toBe(0);
}

describe.skipIf(!redisUp)('RateBudget shared by instances on one Redis', () => {
  it('keeps the calls of three instances to one method within its limit in every rolling window', async () => {
    const { budgets } = await instances(3, { 'chat.update': { burst: 10, perSecond: 50 } });
    const calls: number[] = [];
    await Promise.all(
      budgets.map(async (budget) => {
        for (let i = 0; i < 40; i++) {
          await budget.take('chat.update');
          calls.push(performance.now());
        }
      }),
    );
    expect(calls).toHaveLength(120);
    expect(mostInWindow(calls, 1000)).toBeLessThanOrEqual(60);
  });

  it("lets a reserved final update through at once while the workspace's budget is spent by another instance", async () => {
    const { budgets, store, prefix } = await instances(2, { 'chat.update': { burst: 4, perSecond: 0.001 } });
    const [mine, other] = budgets as [RateBudget, RateBudget];
    await mine.ready(['chat.update']);
    expect(mine.reserve('chat.update')).toBe(true);
    // The other instance spends the rest of the burst; this one's progress edits are refused, not queued.
    for (let i = 0; i < 3; i++) await other.take('chat.update');
    expect(mine.tryTake(['chat.update'], undefined, 1)).toBe(false);
    // Four calls made, none left: the reservation came out of the shared burst.
    await expectReservedCallAtOnce({ mine, other, store, key: `${prefix}chat.update`, burst: 4 });
  });

  it('keeps a reservation through the renewal of its lease: the final update still goes at once', async () => {
    let leases = 0;
    let renewed!: () => void;
    const renewal = new Promise<void>((resolve) => {
      renewed = resolve;
    });
    const { budgets, store, prefix } = await instances(2, { 'chat.update': { burst: 3, perSecond: 0.001 } }, (instance) => {
      if (instance === 0 && ++leases === 2) renewed();
    });
    const [mine, other] = budgets as [RateBudget, RateBudget];
    await mine.ready(['chat.update']);
    expect(mine.reserve('chat.update')).toBe(true);
    for (let i = 0; i < 2; i++) await other.take('chat.update');
    // The reserved call's lease ran out unused and was exchanged for a fresh one, not given to the other instance.
    await renewal;
    await expectReservedCallAtOnce({ mine, other, store, key: `${prefix}chat.update`, burst: 3 });
  });
});
