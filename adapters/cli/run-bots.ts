import type { Config } from '../../src/config/config.ts';
import { createCore } from '../../src/core.ts';
import type { Logger } from '../../src/log/logger.ts';
import { HealthRegistry } from '../../src/ops/health.ts';
import { createMetrics } from '../../src/ops/metrics.ts';
import { createOpsServer } from '../../src/ops/ops-server.ts';
import { serviceProbe } from '../../src/ops/service-probe.ts';
import { ShutdownCoordinator } from '../../src/ops/shutdown.ts';
import { installSignalHandlers } from '../../src/ops/signals.ts';
import { startDiscord } from '../discord/index.ts';

/**
 * Runs Herald as a bot: the core, every platform whose token is set, and the ops HTTP server
 * (/healthz, /readyz, /metrics) on PORT; SIGTERM/SIGINT drain replies and close everything in order.
 */
export async function runBots(config: Config, logger: Logger): Promise<void> {
  const metrics = createMetrics();
  const coordinator = new ShutdownCoordinator({ logger, onInflightChange: (n) => metrics.inflightReplies.set(n) });
  installSignalHandlers(coordinator, logger);
  const health = new HealthRegistry({ isShuttingDown: () => coordinator.isShuttingDown });
  const core = await createCore(config, logger, { metrics });
  coordinator.register('close-store', 'core', () => core.close());
  health.register('service', serviceProbe(config.api.baseUrl), { critical: true });
  health.register(
    'store',
    async () => {
      await core.store.get('health:probe');
      return { ok: true };
    },
    { critical: true },
  );
  const ops = createOpsServer({ health, metrics, logger });
  coordinator.register('close-server', 'http', ({ signal }) => ops.close({ signal }));
  const hooks = { metrics, health, shutdown: coordinator };

  const platforms: string[] = [];
  if (config.discord) {
    const discord = await startDiscord({ core, logger, hooks });
    coordinator.register('close-platforms', 'discord', () => discord.stop());
    platforms.push('Discord');
  }
  const port = await ops.listen(config.port);
  logger.info({ platforms, port }, `Herald is running on ${platforms.join(' and ')}; health and metrics on port ${port}`);
}
