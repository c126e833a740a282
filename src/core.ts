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
import { createServiceClient } from './service/client.ts';
import type { ServiceClient } from './service/client.ts';
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
  speak(input: SpeechInput, format: SpeechFormat): Promise<SpokenAudio>;
  close(): Promise<void>;
}

export interface CoreOptions {
  store?: Store;
  metrics?: Metrics;
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
  return {
    config,
    logger,
    client,
    store,
    engine,
    mcp,
    capabilities,
    speak: async (input, format) => {
      const audio = await speak(capabilities, input, format);
      metrics?.requests.inc({ capability: 'synthesize', platform: 'any', outcome: 'ok' });
      metrics?.audioSeconds.inc({ direction: 'out' }, audio.durationSeconds);
      return audio;
    },
    close: async () => {
      await close();
      await client.close();
    },
  };
}
