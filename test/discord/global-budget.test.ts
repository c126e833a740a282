import { REST } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { sharedGlobalBudget, type GlobalBudget } from '../../adapters/discord/global-budget.ts';
import { restOptions } from '../../adapters/discord/rest-options.ts';
import { loadConfig } from '../../src/config/config.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import { RedisStore } from '../../src/store/redis-store.ts';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.ts';
import { silentLogger } from '../helpers/logger.ts';
import { reachable, redisUrl } from '../store/backends.ts';
import { mostInWindow } from '../support/rolling-window.ts';

const redisUp = await reachable(redisUrl);

describe.skipIf(!redisUp)("Discord's global limit shared by processes on one Redis", () => {
  let fake: FakeDiscord;
  const stores: RedisStore[] = [];
  const rests: REST[] = [];

  afterEach(async () => {
    for (const rest of rests.splice(0)) {
      rest.clearHashSweeper();
      rest.clearHandlerSweeper();
    }
    for (const store of stores.splice(0)) await store.close();
    await fake.close();
  });

  /** A process's REST client with Herald's options, drawing on the shared budget when `shared`. */
  async function processRest(shared: boolean): Promise<REST> {
    const env = { API_BASE_URL: 'http://127.0.0.1:1', API_KEY: 'k', DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.restUrl };
    const discord = loadConfig(env, { envFile: '/nonexistent/.env' }).discord!;
    let budget: GlobalBudget | undefined;
    if (shared) {
      const store = await RedisStore.connect(redisUrl);
      stores.push(store);
      budget = sharedGlobalBudget(store, silentLogger, fake.token);
      expect(budget).toBeDefined();
    }
    const rest = new REST(restOptions(discord, budget)).setToken(fake.token);
    rests.push(rest);
    return rest;
  }

  /** Two processes' worth of requests at once; only the global limit can refuse them. */
  async function twoProcessesFiring(shared: boolean): Promise<number> {
    fake = await startFakeDiscord({ rateLimits: { default: { limit: 100_000, windowMs: 1000 } } });
    const both = [await processRest(shared), await processRest(shared)];
    await Promise.all(both.flatMap((rest) => Array.from({ length: 60 }, () => rest.get('/users/@me'))));
    expect(fake.requests.filter((r) => r.status === 200)).toHaveLength(120);
    return fake.rateLimitHits.filter((hit) => hit.global).length;
  }

  it('without the shared budget, two processes at their own 45 a second earn global 429s', async () => {
    expect(await twoProcessesFiring(false)).toBeGreaterThan(0);
  });

  it('with it, two processes firing 120 requests together earn none and stay within 50 in any second', async () => {
    expect(await twoProcessesFiring(true)).toBe(0);
    expect(
      mostInWindow(
        fake.requests.map((r) => r.timestamp),
        1000,
      ),
    ).toBeLessThanOrEqual(50);
  });

  it('never holds back an interaction callback, which the global limit does not count', async () => {
    fake = await startFakeDiscord();
    const store = await RedisStore.connect(redisUrl);
    stores.push(store);
    const budget = sharedGlobalBudget(store, silentLogger, `${fake.token}-callbacks`)!;
    const started = performance.now();
    await Promise.all(Array.from({ length: 100 }, (_, i) => budget(`${fake.restUrl}/v10/interactions/${1000 + i}/token-${i}/callback`)));
    // A hundred counted requests would take over two seconds at 34.5 a second after the burst.
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('Discord with a store of one process', () => {
  it('keeps no shared budget: discord.js counts the global limit alone, as it always has', () => {
    expect(sharedGlobalBudget(new MemoryStore(), silentLogger, 'token')).toBeUndefined();
  });
});
