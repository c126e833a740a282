import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';
import { TokenLeases, type TokenLeasesOptions } from '../store/token-leases.ts';

export type { LeaseLimit, TokenLeases } from '../store/token-leases.ts';

/**
 * This instance's share of platform rate limits that every instance on the same Redis draws on, or undefined when
 * the store is this process's own (memory) or a file (SQLite): a platform then counts its limits in memory alone.
 */
export function sharedLimits(store: Store, logger: Logger, options: Omit<TokenLeasesOptions, 'store' | 'logger'>): TokenLeases | undefined {
  return store.kind === 'redis' ? new TokenLeases({ store, logger, ...options }) : undefined;
}
