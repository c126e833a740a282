import type { Logger } from '../log/logger.ts';
import type { Citation, JsonSchemaObject, Usage } from '../service/types.ts';
import type { WorkspaceHistory } from '../workspace/workspace-history.ts';

/** What a tool handler may use; the platform-specific parts come from the adapter per request. */
export interface ToolContext {
  /** Aborted when the user's request is cancelled or the tool times out. */
  signal: AbortSignal;
  /** IANA time zone of the deployment (TZ). */
  timezone: string;
  now(): Date;
  platform: string;
  workspaceId?: string;
  channelId: string;
  userId: string;
  userName: string;
  /** The history of the channels the asker and Herald can read; absent where the adapter offers none. */
  workspace?: WorkspaceHistory;
  logger: Logger;
  /** Adds what a tool spent at the service to the reply, so it counts against the asker's quotas. */
  chargeUsage?(usage: Usage): void;
  /** MCP servers the admins switched off here (`/settings mcp_off`). */
  mcpServersOff?: readonly string[];
  /**
   * Asks the asker to approve one tool call and waits for their answer (denied by itself after a while). Absent
   * where no one can be asked: a tool that needs approval is then not run.
   */
  approve?(request: ApprovalRequest): Promise<ApprovalOutcome>;
}

/** A tool call shown to the asker for approval before it runs. */
export interface ApprovalRequest {
  /** The tool as people know it, e.g. `github · create_issue`. */
  title: string;
  /** The validated arguments it would run with. */
  args: Record<string, unknown>;
}

/** What became of an approval: pressed Approve, pressed Deny, or no answer in time. */
export type ApprovalOutcome = 'approved' | 'denied' | 'expired';

export interface ToolAttachment {
  name: string;
  mime: string;
  data: Buffer;
}

/**
 * What a handler returns: a string goes to the model as is; `{ result }` is sent as JSON; attachments
 * are passed to the user with the reply (the model only sees their names). `{ text, citations }` is text whose
 * `[n]` markers number `citations` (index n): they join the reply's sources, renumbered to fit its list.
 */
export type ToolOutput = string | { result: unknown; attachments?: ToolAttachment[] } | { text: string; citations: Citation[] };

export interface ToolDefinition<Args = Record<string, unknown>> {
  /** 1-64 characters: letters, digits, `_` and `-`. */
  name: string;
  description: string;
  /** The arguments' JSON schema; arguments are checked against it before the handler runs. */
  parameters: JsonSchemaObject;
  /** Checks arguments in place of `parameters` (a richer schema than the model is shown); returns the problems found. */
  validate?(args: unknown): string[];
  /** Whether the tool can be offered in this context (default: always). */
  available?(context: ToolContext): boolean;
  /** Whether this call must be approved by the asker before it runs (default: never). */
  needsApproval?(args: Args, context: ToolContext): boolean;
  /** How the tool is named to the asker in an approval (default: its name). */
  title?: string;
  handler(args: Args, context: ToolContext): ToolOutput | Promise<ToolOutput>;
}

/** Typed helper for writing a tool: `defineTool<{ city: string }>({ ... })`. */
export function defineTool<Args>(tool: ToolDefinition<Args>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}
