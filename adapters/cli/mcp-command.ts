import type { Config } from '../../src/config/config.ts';
import type { Logger } from '../../src/log/logger.ts';
import { describeToolImage } from '../../src/mcp/describe-tool-image.ts';
import { McpHub, type McpServerStatus } from '../../src/mcp/mcp-hub.ts';
import { createServiceClient } from '../../src/service/client.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { UsageError } from './cli-error.ts';
import type { TerminalOutput } from './terminal-reply.ts';

/**
 * `herald mcp list`: each server of MCP_CONFIG, its state after its first connection attempt, and its tools;
 * `herald mcp call SERVER TOOL [JSON]`: one call by the server's own names, arguments checked against its schema,
 * the result printed as the model would read it (no approval: the operator runs it).
 */
export async function mcpCommand(args: string[], config: Config, logger: Logger, io: TerminalOutput): Promise<void> {
  const [action, ...rest] = args;
  if (action !== 'list' && action !== 'call') throw new UsageError('herald mcp takes "list" or "call SERVER TOOL [JSON]"');
  if (action === 'call' && (rest.length < 2 || rest.length > 3))
    throw new UsageError('herald mcp call takes SERVER TOOL and optionally a JSON object');
  if (action === 'list' && rest.length > 0) throw new UsageError('herald mcp list takes no arguments');
  if (config.mcpServers.length === 0) throw new UsageError('no MCP servers are configured: set MCP_CONFIG to a JSON file of them');
  const callArgs = action === 'call' ? jsonObject(rest[2]) : {};
  const client = config.api.baseUrl ? createServiceClient(config, logger) : undefined;
  const hub = new McpHub({
    servers: config.mcpServers,
    logger,
    registry: new ToolRegistry(),
    ...(client && { describeImage: describeToolImage({ client, config, logger }) }),
  });
  hub.start();
  try {
    if (action === 'list') {
      await hub.firstAttempts();
      io.out.write(`${hub.status().map(serverLines).join('\n')}\n`);
      return;
    }
    const [server, tool] = rest as [string, string];
    const timeout = config.mcpServers.find((s) => s.name === server)?.timeoutMs ?? 0;
    const text = await hub.call(server, tool, callArgs, AbortSignal.timeout(timeout + 30_000));
    io.out.write(`${text}\n`);
  } finally {
    await hub.close();
    await client?.close();
  }
}

function serverLines(server: McpServerStatus): string {
  const head = `${server.name} (${server.transport}): ${server.state}${server.error ? ` — ${server.error}` : ''}`;
  const tools = server.tools.map((t) => `  ${t.tool}${t.needsApproval ? ' [asks for approval]' : ''} — as ${t.name}: ${firstLine(t.description)}`);
  return [head, ...tools].join('\n');
}

function firstLine(text: string): string {
  const line = text.split('\n')[0]!.trim();
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

function jsonObject(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`the arguments are not JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError('the arguments must be a JSON object, e.g. {"query":"x"}');
  return value as Record<string, unknown>;
}
