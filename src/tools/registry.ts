import type { Citation, FunctionTool, ToolCall } from '../service/types.ts';
import type { ToolAttachment, ToolContext, ToolDefinition } from './types.ts';
import { validateArgs } from './validate-args.ts';
import { untilAborted } from '../until-aborted.ts';

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** Longest tool result sent back to the model; longer output is cut with a note. */
export const MAX_RESULT_CHARS = 16_000;
export const DEFAULT_TOOL_TIMEOUT_MS = 20_000;

export interface ToolExecution {
  callId: string;
  name: string;
  /** What goes back to the model as the `role: 'tool'` message. */
  content: string;
  ok: boolean;
  /** Not run: the asker denied the call or let its approval expire (no fault of the tool's). */
  declined?: true;
  attachments: ToolAttachment[];
  /** Sources the content's `[n]` markers number. */
  citations: Citation[];
  ms: number;
}

/** The function tools the model may call, by name. */
export class ToolRegistry {
  readonly #tools = new Map<string, ToolDefinition>();
  readonly #timeoutMs: number;

  constructor(tools: readonly ToolDefinition[] = [], options: { timeoutMs?: number } = {}) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    for (const tool of tools) this.register(tool);
  }

  register(tool: ToolDefinition): void {
    const problem = toolProblem(tool);
    if (problem) throw new TypeError(problem);
    if (this.#tools.has(tool.name)) throw new TypeError(`a tool named "${tool.name}" is already registered`);
    this.#tools.set(tool.name, tool);
  }

  /** Registers `tool`, or puts it in place of the one of that name (a tool that changed at its source). */
  put(tool: ToolDefinition): void {
    const problem = toolProblem(tool);
    if (problem) throw new TypeError(problem);
    this.#tools.set(tool.name, tool);
  }

  /** Takes a tool away (its source stopped offering it); true when it was there. */
  remove(name: string): boolean {
    return this.#tools.delete(name);
  }

  get(name: string): ToolDefinition | undefined {
    return this.#tools.get(name);
  }

  list(): ToolDefinition[] {
    return [...this.#tools.values()];
  }

  /** The wire definitions of the tools available in this context. */
  definitions(context: ToolContext): FunctionTool[] {
    return this.list()
      .filter((tool) => tool.available?.(context) ?? true)
      .map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
  }

  /**
   * Runs one call. Never throws: unknown tools, invalid JSON, arguments that break the schema, handler
   * errors and timeouts all become an `Error: …` result the model can read and react to.
   */
  async execute(call: ToolCall, context: ToolContext): Promise<ToolExecution> {
    const started = performance.now();
    const done = (content: string, ok: boolean, attachments: ToolAttachment[] = [], citations: Citation[] = []): ToolExecution => ({
      callId: call.id,
      name: call.function.name,
      content: truncate(content),
      ok,
      attachments,
      citations,
      ms: performance.now() - started,
    });
    const tool = this.#tools.get(call.function.name);
    if (!tool || !(tool.available?.(context) ?? true)) {
      const known = this.definitions(context)
        .map((t) => t.function.name)
        .join(', ');
      return done(`Error: there is no tool named "${call.function.name}". Available tools: ${known || 'none'}.`, false);
    }
    let args: unknown;
    try {
      args = call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments);
    } catch (error) {
      return done(`Error: the arguments are not valid JSON (${(error as Error).message}). Send a JSON object matching the schema.`, false);
    }
    const problems = tool.validate ? tool.validate(args) : validateArgs(tool.parameters, args);
    if (problems.length > 0) return done(`Error: invalid arguments: ${problems.join('; ')}.`, false);
    if (tool.needsApproval?.(args as Record<string, unknown>, context)) {
      if (!context.approve)
        return done("Error: this tool needs the asker's approval, and there is no way to ask for it here. It was not run.", false);
      const outcome = await context.approve({ title: tool.title ?? tool.name, args: args as Record<string, unknown> });
      if (outcome !== 'approved') return { ...done(NOT_APPROVED[outcome], false), declined: true };
    }

    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const signal = AbortSignal.any([context.signal, timeout]);
    try {
      const output = await untilAborted(Promise.resolve(tool.handler(args as Record<string, unknown>, { ...context, signal })), signal);
      if (typeof output === 'string') return done(output, true);
      if ('text' in output) return done(output.text, true, [], output.citations);
      return done(JSON.stringify(output.result) ?? 'null', true, output.attachments ?? []);
    } catch (error) {
      if (timeout.aborted) return done(`Error: the tool did not finish within ${Math.round(this.#timeoutMs / 1000)} s.`, false);
      if (context.signal.aborted) throw context.signal.reason;
      context.logger.debug({ tool: tool.name, err: error }, 'tool failed');
      return done(`Error: ${(error as Error)?.message ?? String(error)}`, false);
    }
  }
}

/** What the model is told of a call the asker did not approve. */
const NOT_APPROVED = {
  denied: 'The asker denied this call. It was not run.',
  expired: 'The asker did not approve this call in time. It was not run.',
} as const;

function truncate(content: string): string {
  if (content.length <= MAX_RESULT_CHARS) return content;
  return `${content.slice(0, MAX_RESULT_CHARS)}\n[… ${content.length - MAX_RESULT_CHARS} more characters cut]`;
}

/** Why a value is not a usable tool definition, or null when it is. */
export function toolProblem(tool: unknown): string | null {
  if (typeof tool !== 'object' || tool === null) return 'a tool must be an object';
  const t = tool as Partial<ToolDefinition>;
  if (typeof t.name !== 'string' || !NAME.test(t.name)) return `tool name ${JSON.stringify(t.name)} must be 1-64 letters, digits, _ or -`;
  if (typeof t.description !== 'string' || t.description.trim() === '') return `tool "${t.name}" needs a description`;
  if (typeof t.parameters !== 'object' || t.parameters === null || t.parameters.type !== 'object') {
    return `tool "${t.name}" needs parameters: a JSON schema with type "object"`;
  }
  if (typeof t.handler !== 'function') return `tool "${t.name}" needs a handler function`;
  return null;
}
