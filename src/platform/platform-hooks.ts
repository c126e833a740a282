import type { HealthRegistry } from '../ops/health.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { RouteHandler } from '../ops/ops-server.ts';

/** Serves a platform's HTTP requests under `pathPrefix` on the process's ops server. */
export type MountFunction = (pathPrefix: string, handler: RouteHandler) => void;

/** What a running Herald lends every platform; each part is optional (tests and the CLI leave most out). */
export interface PlatformHooks {
  metrics?: Pick<Metrics, 'platformRateLimited'> & Partial<Pick<Metrics, 'inflightReplies' | 'feedback' | 'sharedRateLeases' | 'repliesTakenOver'>>;
  /** A platform whose connection decides readiness registers a critical check. */
  health?: Pick<HealthRegistry, 'register'>;
  shutdown?: {
    /** Aborts when Herald starts stopping: no new work. */
    readonly drainingSignal: AbortSignal;
    /** Aborts when replies in progress must end now (they close with a note). */
    readonly deadlineSignal: AbortSignal;
    /** Counts work as in flight until it settles; shutdown waits for it. */
    track<T>(work: Promise<T>, label?: string): Promise<T>;
  };
  mount?: MountFunction;
}
