import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Env } from '../config/config.ts';
import { ConfigError } from '../config/config-error.ts';

/** Where a server's tools are offered: `discord`, `slack:T0123`, `discord:GUILD/CHANNEL`, `cli`… */
export interface McpScopeEntry {
  platform: string;
  workspaceId?: string;
  channelId?: string;
}

interface McpServerCommon {
  /** The key under `mcpServers`; prefixes its tools' names. */
  name: string;
  /** Only a trusted server's `readOnlyHint` lets its tools run without the asker's approval. */
  trusted: boolean;
  /** Empty: everywhere. */
  scope: McpScopeEntry[];
  /** Longest one call may take. */
  timeoutMs: number;
}

export interface McpStdioServer extends McpServerCommon {
  transport: 'stdio';
  command: string;
  args: string[];
  /** Everything the child's environment holds beyond the SDK's safe base (PATH, HOME, USER, SHELL, TERM, LOGNAME). */
  env: Record<string, string>;
  cwd?: string;
}

export interface McpHttpServer extends McpServerCommon {
  /** `http`: Streamable HTTP, falling back to legacy SSE when the server does not speak it; `sse`: legacy SSE only. */
  transport: 'http' | 'sse';
  url: URL;
  headers: Record<string, string>;
}

export type McpServerConfig = McpStdioServer | McpHttpServer;

export const DEFAULT_MCP_TIMEOUT_MS = 20_000;
const SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;
const SCOPE_ENTRY = /^([a-z][a-z0-9-]{0,19})(:([^/\s]+)(\/([^/\s]+))?)?$/;

const stringMap = z.record(z.string(), z.string()).default({});
const heraldKeys = {
  trusted: z.boolean().default(false),
  scope: z.array(z.string().regex(SCOPE_ENTRY, 'a place such as "discord", "discord:GUILD", "slack:TEAM/CHANNEL" or "cli"')).default([]),
  timeoutSeconds: z
    .number()
    .positive()
    .max(DEFAULT_MCP_TIMEOUT_MS / 1000)
    .optional(),
  disabled: z.boolean().default(false),
};
const stdioEntry = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: stringMap,
  cwd: z.string().min(1).optional(),
  ...heraldKeys,
});
const httpEntry = z.strictObject({
  type: z.enum(['http', 'streamable-http', 'streamableHttp', 'sse']).optional(),
  url: z.url({ protocol: /^https?$/ }),
  headers: stringMap,
  ...heraldKeys,
});
const file = z.object({ mcpServers: z.record(z.string(), z.unknown()) });

/**
 * Reads MCP_CONFIG: the common `{ "mcpServers": { NAME: { command, args, env } | { url, headers } } }` file, with
 * Herald's keys beside them (`trusted`, `scope`, `timeoutSeconds`, `disabled`). `${VAR}` in an env value or a
 * header is taken from Herald's environment, so secrets need not sit in the file.
 */
export function readMcpConfig(path: string, env: Env): McpServerConfig[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError('MCP_CONFIG', `${path} cannot be read as JSON (${(error as Error).message})`);
  }
  const parsed = file.safeParse(raw);
  if (!parsed.success) throw new ConfigError('MCP_CONFIG', `${path}: ${issueText(parsed.error.issues[0]!)}`);
  const servers: McpServerConfig[] = [];
  for (const [name, entry] of Object.entries(parsed.data.mcpServers)) {
    if (!SERVER_NAME.test(name))
      throw new ConfigError('MCP_CONFIG', `${path}: server name ${JSON.stringify(name.slice(0, 40))} must be 1-32 letters, digits, _ or -`);
    const server = serverConfig(name, entry, env, path);
    if (server) servers.push(server);
  }
  return servers;
}

function serverConfig(name: string, entry: unknown, env: Env, path: string): McpServerConfig | null {
  const isHttp = typeof entry === 'object' && entry !== null && 'url' in entry;
  const parsed = isHttp ? httpEntry.safeParse(entry) : stdioEntry.safeParse(entry);
  if (!parsed.success) throw new ConfigError('MCP_CONFIG', `${path}: server "${name}": ${issueText(parsed.error.issues[0]!)}`);
  const e = parsed.data;
  if (e.disabled) return null;
  const common = {
    name,
    trusted: e.trusted,
    scope: e.scope.map(scopeEntry),
    timeoutMs: e.timeoutSeconds === undefined ? DEFAULT_MCP_TIMEOUT_MS : Math.round(e.timeoutSeconds * 1000),
  };
  const expand = (map: Record<string, string>, what: string) =>
    Object.fromEntries(Object.entries(map).map(([key, value]) => [key, interpolate(value, env, `server "${name}" ${what} ${key}`, path)]));
  if ('url' in e) {
    return { ...common, transport: e.type === 'sse' ? 'sse' : 'http', url: new URL(e.url), headers: expand(e.headers, 'header') };
  }
  return { ...common, transport: 'stdio', command: e.command, args: e.args, env: expand(e.env, 'env'), ...(e.cwd && { cwd: e.cwd }) };
}

function scopeEntry(text: string): McpScopeEntry {
  const [, platform, , workspaceId, , channelId] = SCOPE_ENTRY.exec(text)!;
  return { platform: platform!, ...(workspaceId && workspaceId !== '*' && { workspaceId }), ...(channelId && { channelId }) };
}

function interpolate(value: string, env: Env, what: string, path: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable: string) => {
    const found = env[variable];
    if (found === undefined) throw new ConfigError('MCP_CONFIG', `${path}: ${what} names \${${variable}}, which is not set`);
    return found;
  });
}

function issueText(issue: z.core.$ZodIssue): string {
  const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return `${where}${issue.message.replace(/^Invalid input: /, '')}`;
}
