import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { HeraldError } from '../errors.ts';
import type { Logger } from '../log/logger.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { McpServerConfig } from './mcp-config.ts';
import { McpConnection, type McpServerState } from './mcp-connection.ts';
import { mcpTool, type BuiltTool } from './mcp-tool.ts';
import { resultText, type DescribeImage, type ResultContext } from './tool-result.ts';
import { ToolNames } from './tool-names.ts';

/** The tool names taken from a server: printable, up to 128 characters (the spec suggests far fewer). */
const TOOL_NAME = /^[^\p{C}]{1,128}$/u;

/**
 * Distinct tool names one server may bring in over the process's life: a tool keeps its name and registry entry
 * while Herald runs, so a server renaming its tools on every listing must not grow them without end.
 */
const MAX_NAMES_PER_SERVER = 512;

/** Counts and times every MCP tool call (`/metrics`). */
export type McpCallRecorder = (labels: { server: string; tool: string; outcome: 'ok' | 'error' | 'timeout' }, seconds: number) => void;

export interface McpHubOptions {
  servers: readonly McpServerConfig[];
  logger: Logger;
  /** The registry the servers' tools join (beside the built-ins). */
  registry: ToolRegistry;
  describeImage?: DescribeImage;
  record?: McpCallRecorder;
}

export interface McpServerStatus {
  name: string;
  transport: McpServerConfig['transport'];
  state: McpServerState;
  error?: string;
  /** Each tool: its own name, the name the model sees, and whether calls need the asker's approval. */
  tools: { tool: string; name: string; needsApproval: boolean; description: string }[];
}

/**
 * Herald's MCP client: one connection per configured server, started without holding up start-up, whose tools
 * join the tool registry as they are listed (and leave it when the server drops them).
 */
export class McpHub {
  readonly #connections = new Map<string, McpConnection>();
  readonly #listed = new Map<string, Map<string, BuiltTool>>();
  /** Every tool name each server has listed, up to MAX_NAMES_PER_SERVER. */
  readonly #named = new Map<string, Set<string>>();
  readonly #names: ToolNames;
  readonly #options: McpHubOptions;
  readonly #logger: Logger;

  constructor(options: McpHubOptions) {
    this.#options = options;
    this.#logger = options.logger.child({ component: 'mcp' });
    this.#names = new ToolNames((name) => options.registry.get(name) !== undefined);
    for (const server of options.servers) {
      this.#listed.set(server.name, new Map());
      this.#named.set(server.name, new Set());
      const connection = new McpConnection(server, this.#logger, {
        tools: (tools) => this.#onTools(server, tools),
      });
      this.#connections.set(server.name, connection);
    }
  }

  /** Starts connecting every server in the background. */
  start(): void {
    for (const connection of this.#connections.values()) connection.start();
  }

  /** Settles once every server's first connection attempt has succeeded or failed. */
  async firstAttempts(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((c) => c.firstAttempt()));
  }

  /** Each server's connection state alone, cheap enough for every `/readyz`. */
  states(): Pick<McpServerStatus, 'name' | 'state'>[] {
    return [...this.#connections.values()].map((connection) => ({ name: connection.config.name, state: connection.state }));
  }

  status(): McpServerStatus[] {
    return [...this.#connections.values()].map((connection) => {
      const { config } = connection;
      const tools = [...this.#listed.get(config.name)!].map(([tool, built]) => ({
        tool,
        name: built.definition.name,
        needsApproval: built.needsApproval,
        description: built.description,
      }));
      return {
        name: config.name,
        transport: config.transport,
        state: connection.state,
        ...(connection.lastError && { error: connection.lastError }),
        tools,
      };
    });
  }

  /** Calls a tool by the server's own names, as an operator would (`herald mcp call`): no approval, no scope. */
  async call(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<string> {
    const connection = this.#connections.get(server);
    if (!connection) throw new HeraldError(`there is no MCP server named "${server}"`, { code: 'mcp_unknown_server', kind: 'invalid_input' });
    await connection.firstAttempt();
    const built = this.#listed.get(server)!.get(tool);
    if (!built && connection.state !== 'connected') {
      throw new HeraldError(`the MCP server "${server}" is ${connection.state} (${connection.lastError ?? 'no answer'})`, {
        code: 'mcp_unreachable',
      });
    }
    if (!built) throw new HeraldError(`the MCP server "${server}" has no tool named "${tool}"`, { code: 'mcp_unknown_tool', kind: 'invalid_input' });
    return built.run(args, signal);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((c) => c.close()));
  }

  #onTools(server: McpServerConfig, tools: Tool[]): void {
    const listed = this.#listed.get(server.name)!;
    const before = new Map(listed);
    listed.clear();
    const connection = this.#connections.get(server.name)!;
    const named = this.#named.get(server.name)!;
    let unnamed = 0;
    for (const tool of tools) {
      if (!TOOL_NAME.test(tool.name)) {
        this.#logger.warn({ mcpServer: server.name, tool: tool.name.slice(0, 80) }, 'MCP tool skipped: its name is empty, too long or unprintable');
        continue;
      }
      if (!named.has(tool.name)) {
        if (named.size >= MAX_NAMES_PER_SERVER) {
          unnamed += 1;
          continue;
        }
        named.add(tool.name);
      }
      const unchanged = before.get(tool.name);
      // Relisted as it was (after each reconnection): kept as built, so its schema is not compiled again.
      if (unchanged && unchanged.source === JSON.stringify(tool)) {
        listed.set(tool.name, unchanged);
        continue;
      }
      const name = this.#names.nameOf(server.name, tool.name);
      const built = mcpTool({
        server,
        tool,
        name,
        isUp: () => connection.state === 'connected' || connection.state === 'restarting',
        call: (args, context) => this.#call(connection, tool.name, args, context),
      });
      listed.set(tool.name, built);
      if (built.notes.length > 0) this.#logger.info({ mcpServer: server.name, tool: tool.name, notes: built.notes }, 'MCP tool schema simplified');
      this.#options.registry.put(built.definition);
    }
    for (const [tool, built] of before) if (!listed.has(tool)) this.#options.registry.remove(built.definition.name);
    if (unnamed > 0) {
      this.#logger.warn(
        { mcpServer: server.name, skipped: unnamed },
        `MCP tools skipped: the server has listed more than ${MAX_NAMES_PER_SERVER} different tool names since Herald started`,
      );
    }
  }

  async #call(connection: McpConnection, tool: string, args: Record<string, unknown>, context: ResultContext): Promise<string> {
    const { signal } = context;
    const started = performance.now();
    const labels = { server: connection.config.name, tool };
    try {
      const result = await connection.call(tool, args, signal);
      const text = await resultText(result, this.#options.describeImage, context);
      this.#options.record?.({ ...labels, outcome: 'ok' }, (performance.now() - started) / 1000);
      return text;
    } catch (error) {
      const timedOut = signal.aborted || (error instanceof HeraldError && error.code === 'mcp_timeout');
      this.#options.record?.({ ...labels, outcome: timedOut ? 'timeout' : 'error' }, (performance.now() - started) / 1000);
      throw error;
    }
  }
}
