import type { HealthRegistry } from '../../src/ops/health.ts';
import type { Metrics } from '../../src/ops/metrics.ts';

/** The entry point's ops pieces the adapter reports to; each is optional. */
export interface DiscordHooks {
  metrics?: Pick<Metrics, 'platformRateLimited' | 'inflightReplies'>;
  health?: Pick<HealthRegistry, 'register'>;
  shutdown?: {
    /** Aborts when Herald starts stopping: no new replies. */
    readonly drainingSignal: AbortSignal;
    /** Aborts when replies in progress must end now. */
    readonly deadlineSignal: AbortSignal;
    track<T>(work: Promise<T>, label?: string): Promise<T>;
    register(phase: 'close-platforms', name: string, drain: () => Promise<void>): void;
  };
}
