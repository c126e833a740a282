import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { pino } from 'pino';
import type { McpServerConfig } from '../src/mcp/mcp-config.ts';
import { McpHub } from '../src/mcp/mcp-hub.ts';
import { ToolRegistry } from '../src/tools/registry.ts';
import type { ToolContext } from '../src/tools/types.ts';
import { median, percentile } from './stats.ts';

const CALLS = 400;
const WARMUP = 40;
/** The tool waits this long itself: its own time, which both paths pay. */
const TOOL_MS = 2;
const GOAL_MS = 5;
const acmeStdio = new URL('../test/fakes/mcp/acme-stdio.ts', import.meta.url).pathname;
const args = { ms: TOOL_MS };

/**
 * One MCP tool round trip over stdio as the model's call takes it (the registry: arguments parsed and checked
 * against the server's schema, the SDK call, the result turned into text) against the SDK client calling the same
 * server directly, alternated call by call so both see the same machine.
 */
export async function run(): Promise<{ markdown: string }> {
  const logger = pino({ level: 'silent' });
  const server: McpServerConfig = {
    name: 'acme',
    transport: 'stdio',
    command: process.execPath,
    args: [acmeStdio],
    env: {},
    trusted: true,
    scope: [],
    timeoutMs: 20_000,
  };
  const registry = new ToolRegistry();
  const hub = new McpHub({ servers: [server], logger, registry });
  hub.start();
  const reference = new Client({ name: 'bench', version: '1' });
  await reference.connect(new StdioClientTransport({ command: process.execPath, args: [acmeStdio], env: {}, stderr: 'ignore' }));
  await hub.firstAttempts();
  const context: ToolContext = {
    signal: new AbortController().signal,
    timezone: 'UTC',
    now: () => new Date(),
    platform: 'cli',
    channelId: 'bench',
    userId: 'bench',
    userName: 'Bench',
    logger,
  };
  const call = { id: 'c1', type: 'function' as const, function: { name: 'acme__sleep', arguments: JSON.stringify(args) } };

  const herald: number[] = [];
  const direct: number[] = [];
  try {
    for (let i = 0; i < WARMUP + CALLS; i++) {
      let started = performance.now();
      const execution = await registry.execute(call, context);
      const heraldMs = performance.now() - started;
      if (!execution.ok || execution.content !== 'slept') throw new Error(`herald's call failed: ${execution.content}`);
      started = performance.now();
      const result = await reference.callTool({ name: 'sleep', arguments: args });
      const directMs = performance.now() - started;
      if (result.isError) throw new Error('the direct call failed');
      if (i >= WARMUP) {
        herald.push(heraldMs);
        direct.push(directMs);
      }
    }
  } finally {
    await reference.close();
    await hub.close();
  }
  const overhead = median(herald) - median(direct);
  const row = (name: string, values: number[]) =>
    `| ${name} | ${median(values).toFixed(2)} | ${percentile(values, 95).toFixed(2)} | ${percentile(values, 99).toFixed(2)} |`;
  const markdown = [
    '## MCP tool round trip over stdio',
    '',
    `${CALLS} calls of a tool that itself waits ${TOOL_MS} ms, through Herald's tool registry and MCP client, alternated with`,
    'the same call by the SDK client straight to another process of the same server (the reference).',
    '',
    '| path | median ms | p95 ms | p99 ms |',
    '|---|---|---|---|',
    row('Herald (registry → MCP client → server)', herald),
    row('SDK client → server (reference)', direct),
    '',
    `Herald's overhead beyond the tool's own round trip: **${overhead.toFixed(2)} ms** at the median (goal ≤ ${GOAL_MS} ms: ${overhead <= GOAL_MS ? 'met' : 'missed'}).`,
  ].join('\n');
  return { markdown };
}
