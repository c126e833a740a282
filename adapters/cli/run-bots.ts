import type { Config } from '../../src/config/config.ts';
import { createCore, type Core } from '../../src/core.ts';
import { loadPackage } from '../../src/load-package.ts';
import type { Logger } from '../../src/log/logger.ts';
import { opusBackend } from '../../src/media/opus-backend.ts';
import { HealthRegistry } from '../../src/ops/health.ts';
import { createMetrics, type Metrics } from '../../src/ops/metrics.ts';
import { createOpsServer, type OpsServer } from '../../src/ops/ops-server.ts';
import { serviceProbe } from '../../src/ops/service-probe.ts';
import { ShutdownCoordinator } from '../../src/ops/shutdown.ts';
import { installSignalHandlers } from '../../src/ops/signals.ts';

interface Running {
  core: Core;
  ops: OpsServer;
  metrics: Metrics;
  health: HealthRegistry;
  coordinator: ShutdownCoordinator;
}

/**
 * Connects every platform whose token is set; returns their names for the start-up line. A platform's adapter
 * (and its library, tens of MiB) is loaded only when that platform is configured.
 */
async function startPlatforms({ core, ops, metrics, health, coordinator }: Running, logger: Logger): Promise<string[]> {
  const { config } = core;
  const hooks = { metrics, health, shutdown: coordinator };
  const platforms: string[] = [];
  if (config.discord) {
    const { startDiscord } = await loadPackage('discord.js', () => import('../discord/index.ts'));
    const discord = await startDiscord({ core, logger, hooks });
    coordinator.register('close-platforms', 'discord', () => discord.stop());
    platforms.push('Discord');
  }
  if (config.slack) {
    const { startSlack } = await loadPackage('@slack/bolt', () => import('../slack/start-slack.ts'));
    const slack = await startSlack({ core, logger, hooks: { ...hooks, mount: (prefix, handler) => ops.mount(prefix, handler) } });
    coordinator.register('close-platforms', 'slack', () => slack.stop());
    platforms.push(config.slack.appToken ? 'Slack (Socket Mode)' : 'Slack (HTTP, /slack/events)');
  }
  return platforms;
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
  const ops = createOpsServer({ health, metrics, logger, metricsToken: config.metricsToken });
  coordinator.register('close-server', 'http', ({ signal }) => ops.close({ signal }));

  let platforms: string[];
  try {
    platforms = await startPlatforms({ core, ops, metrics, health, coordinator }, logger);
  } catch (error) {
    await coordinator.shutdown('startup failed');
    throw error;
  }
  const port = await ops.listen(config.port, config.host);
  // Which libopus codes voice notes and speech: the wasm fallback costs about 1.5× the CPU, worth knowing at a glance.
  const opus = opusBackend();
  logger.info({ platforms, port, opus }, `Herald is running on ${platforms.join(' and ')}; health and metrics on port ${port}; Opus: ${opus} libopus`);
}
