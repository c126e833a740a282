import { createHash } from 'node:crypto';
import type { Core } from '../../src/core.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { PlatformHooks } from '../../src/platform/platform-hooks.ts';
import { sharedLimits } from '../../src/platform/shared-limits.ts';

/** Waits until a REST request to `url` may be sent under the bot's global limit, and takes its place. */
export type GlobalBudget = (url: string) => Promise<void>;

/**
 * Discord allows a bot 50 requests a second across all its processes. Burst 10 plus 38 a second is 48 in any
 * second, two short of 50 for requests that take different times to arrive; a leased token is used within 100 ms,
 * so the shared bucket refills at 38 × 1000 / 1100 ≈ 34.5 a second.
 */
const GLOBAL_LIMIT = { burst: 10, perSecond: 38 };
const LEASES = { windowMs: 1000, ttlMs: 100 };

/** Interaction callbacks are exempt from the global limit (Discord's own rule); they must not wait behind it. */
const INTERACTION_CALLBACK = /\/interactions\/\d+\/[^/]+\/callback$/;

/**
 * The global limit shared by every process on a Redis store, keyed by a hash of the bot token (never the token);
 * undefined with a store of one process. Each process's discord.js still keeps its own 50/s count and the
 * per-route buckets, which belong to one process.
 */
export function sharedGlobalBudget(
  store: Core['store'],
  logger: Logger,
  token: string,
  metrics?: PlatformHooks['metrics'],
): GlobalBudget | undefined {
  const bot = createHash('sha256').update(token).digest('hex').slice(0, 16);
  const leases = sharedLimits(store, logger, {
    prefix: `rate:discord:${bot}:`,
    ...LEASES,
    onLease: (outcome) => metrics?.sharedRateLeases?.inc({ platform: 'discord', outcome }),
  });
  if (!leases) return undefined;
  return async (url) => {
    if (!INTERACTION_CALLBACK.test(new URL(url).pathname)) await leases.take('global', GLOBAL_LIMIT);
  };
}
