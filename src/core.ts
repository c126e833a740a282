import type { CapabilityDeps } from './capabilities/deps.ts';
import type { SpeechInput } from './capabilities/synthesize.ts';
import type { Config } from './config/config.ts';
import { createEngine } from './conversation/create-engine.ts';
import type { ConversationEngine } from './conversation/engine.ts';
import type { Logger } from './log/logger.ts';
import type { McpHub } from './mcp/mcp-hub.ts';
import type { Metrics } from './ops/metrics.ts';
import { mcpMetricsRecorder } from './ops/mcp-metrics.ts';
import { replyMetricsRecorder } from './ops/reply-metrics.ts';
import { scheduleMetricsRecorder } from './ops/schedule-metrics.ts';
import { createServiceClient } from './service/client.ts';
import type { ServiceClient } from './service/client.ts';
import { Scheduler } from './schedules/scheduler.ts';
import type { ScheduleService } from './schedules/schedule-service.ts';
import type { UserTimezones } from './schedules/user-timezones.ts';
import { speak, type SpeechFormat, type SpokenAudio } from './speech/speak.ts';
import type { Store } from './store/store.ts';

/** The platform-neutral core every adapter drives: one client, one store, one engine. */
export interface Core {
  config: Config;
  logger: Logger;
  client: ServiceClient;
  store: Store;
  engine: ConversationEngine;
  /** The MCP servers of MCP_CONFIG. */
  mcp: McpHub;
  capabilities: CapabilityDeps;
  /** Runs reminders and schedules through the deliveries the platforms attach; the entry point starts it. */
  scheduler: Scheduler;
  /** The scheduler's service, for the commands. */
  schedules: ScheduleService;
  timezones: UserTimezones;
  speak(input: SpeechInput, format: SpeechFormat): Promise<SpokenAudio>;
  close(): Promise<void>;
}

export interface CoreOptions {
  store?: Store;
  metrics?: Metrics;
  /** The clock schedules run by (ms since the epoch); tests control it. */
  now?: () => number;
}

export async function createCore(config: Config, logger: Logger, options: CoreOptions = {}): Promise<Core> {
  const client = createServiceClient(config, logger);
  const capabilities: CapabilityDeps = { client, config, logger };
  const { metrics } = options;
  const { engine, store, mcp, close } = await createEngine({
    config,
    logger,
    client,
    store: options.store,
    ...(metrics && {
      overrides: { onReply: replyMetricsRecorder(metrics) },
      recordMcpCall: mcpMetricsRecorder(metrics),
    }),
  });
  const scheduler = new Scheduler({
    store,
    engine,
    config,
    logger,
    ...(options.now && { now: options.now }),
    ...(metrics && { onRun: scheduleMetricsRecorder(metrics) }),
  });
  return {
    config,
    logger,
    client,
    store,
    engine,
    mcp,
    capabilities,
    scheduler,
    schedules: scheduler.service,
    timezones: scheduler.timezones,
    speak: async (input, format) => {
      const audio = await speak(capabilities, input, format);
      metrics?.requests.inc({ capability: 'synthesize', platform: 'any', outcome: 'ok' });
      metrics?.audioSeconds.inc({ direction: 'out' }, audio.durationSeconds);
      return audio;
    },
    close: async () => {
      await scheduler.stop();
      await close();
      await client.close();
    },
  };
}
