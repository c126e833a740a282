import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import { RedisStore } from '../../src/store/redis-store.ts';
import type { Store } from '../../src/store/store.ts';
import { TokenLeases, type LeaseLimit, type TokenLeasesOptions } from '../../src/store/token-leases.ts';
import { silentLogger } from '../helpers/logger.ts';
import { mostInWindow } from '../support/rolling-window.ts';
import { reachable, redisUrl, uniqueKey } from './backends.ts';

const redisUp = await reachable(redisUrl);
const opened: Store[] = [];

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

const prefix = () => `${uniqueKey('leases')}:`;

/** `count` instances, each with its own connection to one Redis, sharing buckets under `prefix`. */
async function instances(
  count: number,
  prefix: string,
  windowMs: number,
  ttlMs: number,
  onLease?: TokenLeasesOptions['onLease'],
): Promise<TokenLeases[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const store = await RedisStore.connect(redisUrl);
      opened.push(store);
      return new TokenLeases({ store, logger: silentLogger, prefix, windowMs, ttlMs, ...(onLease && { onLease }) });
    }),
  );
}

describe.skipIf(!redisUp)('token leases on one Redis', () => {
  it('three instances taking as fast as they can stay within burst + rate × window in every rolling window', async () => {
    const limit: LeaseLimit = { burst: 10, perSecond: 50 };
    const all = await instances(3, prefix(), 1000, 200);
    const calls: number[] = [];
    const started = performance.now();
    await Promise.all(
      all.map(async (leases) => {
        for (let i = 0; i < 40; i++) {
          await leases.take('method', limit);
          calls.push(performance.now());
        }
      }),
    );
    expect(calls).toHaveLength(120);
    expect(mostInWindow(calls, 1000)).toBeLessThanOrEqual(60);
    // Paced, not stalled: 110 calls after the burst at about 42 a second.
    expect(performance.now() - started).toBeLessThan(6000);
  });

  it('gives back what an instance leased and did not use, so another instance gets it', async () => {
    const limit: LeaseLimit = { burst: 6, perSecond: 0.001 };
    const shared = prefix();
    const outcomes: string[] = [];
    const [first, second] = await instances(2, shared, 1000, 150, (outcome) => outcomes.push(outcome));
    // The first makes one call, leasing more than that; the rest goes back once its lease is over.
    await first!.take('method', limit);
    await Promise.all(Array.from({ length: 5 }, () => second!.take('method', limit)));
    // All six calls of the burst were made, and none is left.
    const rest = await opened[0]!.exchangeTokens(`${shared}method`, { capacity: 6, refillPerSecond: 0.001, giveBack: 0, want: 1 });
    expect(rest.granted).toBe(0);
    // The second was short until the first's lease ran out: the metric shows instances waiting on each other.
    expect(outcomes).toContain('short');
  });
});

describe('token leases without their store', () => {
  it('count in this process alone when the store fails, and say so once', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
        done();
      },
    });
    const broken = Object.assign(Object.create(new MemoryStore()) as Store, {
      exchangeTokens: () => Promise.reject(new Error('connection refused')),
    });
    const leases = new TokenLeases({
      store: broken,
      logger: createLogger({ level: 'info', secrets: [], destination }),
      prefix: 'rate:',
      windowMs: 1000,
      ttlMs: 100,
    });
    const limit: LeaseLimit = { burst: 5, perSecond: 0.001 };
    for (let i = 0; i < 5; i++) await leases.take('method', limit);
    await leases.settled('method', limit, 1);
    expect(leases.held('method', limit)).toBe(0);
    expect(leases.waitMs('method', limit, 1)).toBeGreaterThan(1000);
    expect(lines.filter((line) => String(line.msg).includes('store unreachable'))).toHaveLength(1);
  });
});
