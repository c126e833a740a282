import { chat } from '../capabilities/chat.ts';
import type { CapabilityDeps } from '../capabilities/deps.ts';
import { transcribe } from '../capabilities/transcribe.ts';
import type { Config } from '../config/config.ts';
import type { Logger } from '../log/logger.ts';
import { prepareAudioForAsr } from '../media/audio/prepare-audio.ts';
import { prepareImage } from '../media/image/prepare-image.ts';
import { describeToolImage } from '../mcp/describe-tool-image.ts';
import { McpHub, type McpCallRecorder } from '../mcp/mcp-hub.ts';
import { ServiceClient } from '../service/client.ts';
import { openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { builtinTools } from '../tools/builtin-tools.ts';
import { loadToolsModule } from '../tools/load-tools-module.ts';
import { ToolRegistry } from '../tools/registry.ts';
import { ConversationEngine, type EngineDeps } from './engine.ts';

export interface CreateEngineOptions {
  config: Config;
  logger: Logger;
  /** Default: a client built from config.api. */
  client?: ServiceClient;
  /** Default: openStore(config.storeUrl) with STORE_TIMEOUT_MS. */
  store?: Store;
  /** Anything else to replace (tests, benchmarks). */
  overrides?: Partial<EngineDeps>;
  /** Counts and times MCP tool calls. */
  recordMcpCall?: McpCallRecorder;
}

export interface EngineHandle {
  engine: ConversationEngine;
  store: Store;
  /** The MCP servers of MCP_CONFIG, connecting in the background. */
  mcp: McpHub;
  /** Closes the MCP servers, and the store when this function opened it. */
  close(): Promise<void>;
}

/**
 * The engine wired to the real parts: service client and capabilities, media preparation, the store
 * named by STORE_URL, the built-in tools, the operator's TOOLS_MODULE (loaded once, here) and the tools of the
 * MCP servers in MCP_CONFIG (joining as each server connects).
 */
export async function createEngine(options: CreateEngineOptions): Promise<EngineHandle> {
  const { config, logger } = options;
  const client =
    options.client ??
    new ServiceClient({
      baseUrl: config.api.baseUrl,
      apiKey: config.api.key,
      auth: config.api.auth,
      messagesPrefix: config.api.messagesPrefix,
      timeouts: config.api.timeouts,
      maxRetries: config.api.maxRetries,
      logger,
    });
  const capabilityDeps: CapabilityDeps = { client, config, logger };
  const operatorTools = config.conversation.toolsModule ? await loadToolsModule(config.conversation.toolsModule) : [];
  const tools = new ToolRegistry([...builtinTools, ...operatorTools]);
  const store = options.store ?? (await openStore(config.storeUrl, { timeoutMs: config.storeTimeoutMs, logger }));
  const mcp = new McpHub({
    servers: config.mcpServers,
    logger,
    registry: tools,
    describeImage: describeToolImage(capabilityDeps),
    ...(options.recordMcpCall && { record: options.recordMcpCall }),
  });
  mcp.start();
  const engine = new ConversationEngine({
    config,
    logger,
    store,
    chat: (input) => chat(capabilityDeps, input),
    transcribe: (input) => transcribe(capabilityDeps, input),
    prepareImage: (bytes) => prepareImage(bytes, { maxPixels: config.media.maxImagePixels }),
    prepareAudio: (bytes) =>
      prepareAudioForAsr(bytes, {
        maxDurationSeconds: config.media.maxAudioSeconds,
        ffmpeg: { ffmpegPath: config.media.ffmpeg.path, searchPath: config.media.ffmpeg.searchPath },
      }),
    tools,
    ...options.overrides,
  });
  return {
    engine,
    store,
    mcp,
    close: async () => {
      await mcp.close();
      if (!options.store) await store.close();
    },
  };
}
