import type { Store } from '../store/store.ts';

/**
 * What an adapter keeps between events — a reply chain's root, the threads it answered in, a server's choices —
 * as plain values with a lifetime in the core's store. Locks, claims and counters stay with the core.
 */
export type PlatformState = Pick<Store, 'get' | 'set' | 'delete'>;
