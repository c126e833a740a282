import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { HeraldError } from '../errors.ts';
import type { ToolContext, ToolDefinition } from '../tools/types.ts';
import type { McpScopeEntry, McpServerConfig } from './mcp-config.ts';
import { simplifySchema, trimDescription } from './simplify-schema.ts';
import type { ResultContext } from './tool-result.ts';

/** Largest input schema compiled for checking arguments, as JSON characters. */
const MAX_SCHEMA_CHARS = 64 * 1024;

export interface McpToolOptions {
  server: McpServerConfig;
  tool: Tool;
  /** The name offered to the model (ToolNames). */
  name: string;
  /** Whether the server can take calls now (connected, or restarting). */
  isUp(): boolean;
  call(args: Record<string, unknown>, context: ResultContext): Promise<string>;
}

export interface BuiltTool {
  definition: ToolDefinition;
  /** What was cut or guessed while simplifying its schema, for a log line. */
  notes: string[];
  /** Whether its calls wait for the asker's approval. */
  needsApproval: boolean;
  /** The server's description of it (trimmed). */
  description: string;
  /** The listing it was built from, as JSON. */
  source: string;
  /** Checks arguments against the tool's own schema, then calls it (for operators: no approval, no scope). */
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<string>;
}

/**
 * An MCP tool as a Herald tool: offered where the operator's scope and the admins' `/settings mcp_off` allow, its
 * arguments checked against the server's own schema before the call, and approved by the asker first unless the
 * server is trusted and the tool declares itself read-only (an untrusted server's annotations are not believed).
 */
export function mcpTool(options: McpToolOptions): BuiltTool {
  const { server, tool } = options;
  const simplified = simplifySchema(tool.inputSchema);
  const notes = [...simplified.notes];
  const validate = argumentValidator(tool.inputSchema);
  const readOnly = server.trusted && tool.annotations?.readOnlyHint === true;
  const description = trimDescription(tool.description?.trim() || tool.title || tool.name, 'description', notes);
  const definition: ToolDefinition = {
    name: options.name,
    description: `${description} (from the MCP server "${server.name}")`,
    parameters: simplified.schema,
    title: `${server.name} · ${tool.name}`,
    available: (context) => options.isUp() && inScope(server.scope, context) && !context.mcpServersOff?.includes(server.name),
    needsApproval: () => !readOnly,
    validate: (args) => {
      const problem = validate(args);
      return problem ? [problem] : [];
    },
    handler: (args, context) => options.call(args, context),
  };
  const run = async (args: Record<string, unknown>, signal: AbortSignal) => {
    const problem = validate(args);
    if (problem) throw new HeraldError(`invalid arguments: ${problem}.`, { code: 'mcp_invalid_arguments', kind: 'invalid_input' });
    return options.call(args, { signal });
  };
  return { definition, notes, needsApproval: !readOnly, description, source: JSON.stringify(tool), run };
}

/** Checks arguments against the tool's original schema; returns the problem, or null when they fit. */
function argumentValidator(schema: unknown): (args: unknown) => string | null {
  if (typeof schema !== 'object' || schema === null) return () => null;
  if (JSON.stringify(schema).length > MAX_SCHEMA_CHARS) return () => "the tool's input schema is too large to check arguments against";
  // Compiled as draft-07; the root's own id and dialect are dropped so one server's schema can never stand for another's.
  const { $id: _id, $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  let check: ReturnType<AjvJsonSchemaValidator['getValidator']>;
  try {
    // A compiler per tool, gone with it: one shared compiler keeps every schema it compiled, and a server may relist
    // changed tools without end.
    check = new AjvJsonSchemaValidator().getValidator(rest as never);
  } catch (error) {
    const reason = (error as Error).message.slice(0, 200);
    return () => `the tool's input schema cannot be used (${reason})`;
  }
  return (args) => {
    const result = check(args);
    return result.valid ? null : (result.errorMessage ?? 'they do not match the schema').replace(/\bdata\b/g, 'arguments');
  };
}

function inScope(scope: readonly McpScopeEntry[], context: ToolContext): boolean {
  if (scope.length === 0) return true;
  return scope.some(
    (entry) =>
      entry.platform === context.platform &&
      (entry.workspaceId === undefined || entry.workspaceId === context.workspaceId) &&
      (entry.channelId === undefined || entry.channelId === context.channelId),
  );
}
