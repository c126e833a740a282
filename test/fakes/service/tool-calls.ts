import { randomBytes } from 'node:crypto';
import type { FunctionTool, ToolCall, Turn } from './chat-request.ts';

const fillerWords = new Set(['get', 'set', 'fetch', 'current', 'lookup', 'look', 'up', 'do', 'run', 'the', 'a', 'my', 'tool']);

export function newToolCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}

/** The `{...}` that starts at `from`, with braces inside JSON strings ignored; the rest of the line if unbalanced. */
function braced(text: string, from: number): string {
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth += 1;
    else if (c === '}' && --depth === 0) return text.slice(from, i + 1);
  }
  const end = text.indexOf('\n', from);
  return text.slice(from, end < 0 ? undefined : end);
}

function placeholderArguments(parameters: Record<string, unknown>): string {
  const properties = (parameters.properties ?? {}) as Record<string, { type?: string; enum?: unknown[] }>;
  const required = Array.isArray(parameters.required) ? (parameters.required as string[]) : [];
  const args: Record<string, unknown> = {};
  for (const name of required) {
    const schema = properties[name] ?? {};
    if (Array.isArray(schema.enum) && schema.enum.length > 0) args[name] = schema.enum[0];
    else if (schema.type === 'integer' || schema.type === 'number') args[name] = 1;
    else if (schema.type === 'boolean') args[name] = true;
    else if (schema.type === 'array') args[name] = [];
    else if (schema.type === 'object') args[name] = {};
    else args[name] = 'example';
  }
  return JSON.stringify(args);
}

function nameWords(name: string): string[] {
  return name
    .split(/[_-]|(?<=[a-z])(?=[A-Z])/)
    .map((w) => w.toLowerCase())
    .filter((w) => w !== '' && !fillerWords.has(w));
}

/**
 * The tool calls a user message asks for:
 * - explicit: `call NAME {json}` (any number of times; NAME must be a declared function tool; the
 *   `{...}` is sent verbatim as `arguments`, so a test can make the model emit invalid JSON; no
 *   braces means `{}`);
 * - natural, only when there is no explicit call: every word of a tool's name except filler words
 *   (get, set, fetch, current, lookup, ...) appears in the message, e.g. `get_current_time` for
 *   "what time is it"; required arguments get placeholders (enum[0], 1, true, [], {}, "example").
 */
export function requestedToolCalls(text: string, tools: FunctionTool[]): ToolCall[] {
  const declared = new Map(tools.map((t) => [t.name, t]));
  const explicit: ToolCall[] = [];
  for (const match of text.matchAll(/\bcall\s+([A-Za-z0-9_-]+)[ \t]*/g)) {
    const name = match[1]!;
    if (!declared.has(name)) continue;
    const after = match.index + match[0].length;
    const args = text[after] === '{' ? braced(text, after) : '{}';
    explicit.push({ id: newToolCallId(), name, arguments: args });
  }
  if (explicit.length > 0) return explicit;
  return tools
    .filter((tool) => {
      const needed = nameWords(tool.name);
      return needed.length > 0 && needed.every((w) => new RegExp(`\\b${w}`, 'i').test(text));
    })
    .map((tool) => ({ id: newToolCallId(), name: tool.name, arguments: placeholderArguments(tool.parameters) }));
}

/** When the conversation ends with tool results: a final answer quoting each of them. */
export function toolResultsReply(turns: Turn[]): string | null {
  if (turns.at(-1)?.role !== 'tool') return null;
  let start = turns.length - 1;
  while (start > 0 && turns[start - 1]!.role === 'tool') start -= 1;
  const owner = turns[start - 1]!;
  const lines = turns.slice(start).map((t) => {
    const name = owner.toolCalls.find((c) => c.id === t.toolCallId)?.name ?? t.toolCallId;
    return `- ${name}: ${t.text}`;
  });
  return `Tool results:\n${lines.join('\n')}`;
}

/**
 * Whether the request kept the reasoning_content of earlier assistant tool-call turns: compared with
 * what the emulator sent for those call ids (`sent`), or just non-empty for calls it did not make.
 * Undefined when there is no assistant tool-call turn to check.
 */
export function reasoningKept(turns: Turn[], sent: Map<string, string>): boolean | undefined {
  const checked = turns
    .filter((t) => t.role === 'assistant' && t.toolCalls.length > 0)
    .map((t) => {
      const expected = sent.get(t.toolCalls[0]!.id);
      if (expected === undefined) return (t.reasoning ?? '') !== '';
      return expected === '' || t.reasoning === expected;
    });
  return checked.length === 0 ? undefined : checked.every(Boolean);
}
