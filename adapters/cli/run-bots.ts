import type { Config } from '../../src/config/config.ts';
import { createCore, type Core } from '../../src/core.ts';
import { loadPackage } from '../../src/load-package.ts';
import { mcpHealthCheck } from '../../src/mcp/mcp-health.ts';
import type { Logger } from '../../src/log/logger.ts';
import { opusBackend } from '../../src/media/opus-backend.ts';
import { HealthRegistry } from '../../src/ops/health.ts';
import { createMetrics } from '../../src/ops/metrics.ts';
import { createOpsServer } from '../../src/ops/ops-server.ts';
import { serviceProbe } from '../../src/ops/service-probe.ts';
import { ShutdownCoordinator } from '../../src/ops/shutdown.ts';
import { installSignalHandlers } from '../../src/ops/signals.ts';
import { startPlatforms, type PlatformStarter } from '../../src/platform/start-platforms.ts';

/**
 * The starter of every platform whose token is set. A platform's adapter (and its library, tens of MiB) is loaded
 * only when that platform is configured.
 */
function configuredPlatforms(core: Core, logger: Logger): PlatformStarter[] {
  const starters: PlatformStarter[] = [];
  if (core.config.discord) {
    starters.push(async (hooks) => {
      const { startDiscord } = await loadPackage('discord.js', () => import('../discord/index.ts'));
      return startDiscord({ core, logger, hooks });
    });
  }
  if (core.config.slack) {
    starters.push(async (hooks) => {
      const { startSlack } = await loadPackage('@slack/bolt', () => import('../slack/start-slack.ts'));
      return startSlack({ core, logger, hooks });
    });
  }
  return starters;
}

/**
 * Runs Herald as a bot: the core, every platform whose token is set, and the ops HTTP server
 * (/healthz, /readyz, /metrics, and Slack's /slack/events) on PORT; SIGTERM/SIGINT drain replies and close
 * everything in order. A failure while starting closes what had started.
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
  if (config.mcpServers.length > 0) health.register('mcp', mcpHealthCheck(core.mcp), { critical: false });
  const ops = createOpsServer({ health, metrics, logger, metricsToken: config.metricsToken });
  coordinator.register('close-server', 'http', ({ signal }) => ops.close({ signal }));

  let platforms: string[];
  try {
    const hooks = { metrics, health, shutdown: coordinator, mount: ops.mount.bind(ops) };
    const started = await startPlatforms(configuredPlatforms(core, logger), hooks, coordinator);
    platforms = started.map((platform) => platform.description);
    await core.scheduler.start();
    // Starts no more runs as replies drain; those in progress may finish within the phase's bound, the rest stay due.
    coordinator.register('finish-replies', 'schedules', ({ signal }) => core.scheduler.stop({ signal }));
  } catch (error) {
    await coordinator.shutdown('startup failed');
    throw error;
  }
  const port = await ops.listen(config.port, config.host);
  // Which libopus codes voice notes and speech: the wasm fallback costs about 1.5× the CPU, worth knowing at a glance.
  const opus = opusBackend();
  logger.info(
    { platforms, port, opus },
    `Herald is running on ${platforms.join(' and ')}; health and metrics on port ${port}; Opus: ${opus} libopus`,
  );
}
