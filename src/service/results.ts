import { normalizeCitations, remapCitationMarkers } from './citations.ts';
import { errorFromStreamPayload } from './error-response.ts';
import { ResponseFormatError } from './errors.ts';
import { finishFromStopReason } from './messages-event-reader.ts';
import type { ChatDelta, ChatResult, Citation, ToolCall, Usage } from './types.ts';
import { emptyServiceUsage, usageFromChat, usageFromMessages } from './usage.ts';

/** Folds a stream's deltas into the ChatResult the non-streamed call would have returned. */
export class ResultCollector {
  readonly #content: string[] = [];
  readonly #reasoning: string[] = [];
  readonly #audio: Buffer[] = [];
  #toolCalls: ToolCall[] = [];
  #citations: Citation[] = [];
  #usage: Usage = emptyServiceUsage();
  #finishReason: string | null = null;

  add(delta: ChatDelta): void {
    switch (delta.type) {
      case 'content':
        this.#content.push(delta.text);
        break;
      case 'reasoning':
        this.#reasoning.push(delta.text);
        break;
      case 'tool_calls':
        this.#toolCalls = this.#toolCalls.concat(delta.calls);
        break;
      case 'citations':
        this.#citations = delta.citations;
        break;
      case 'audio':
        this.#audio.push(delta.data);
        break;
      case 'usage':
        this.#usage = delta.usage;
        break;
      case 'finish':
        this.#finishReason = delta.reason;
        break;
    }
  }

  result(model: string, requestId: string | undefined): ChatResult {
    const result: ChatResult = {
      content: this.#content.join(''),
      reasoning: this.#reasoning.join(''),
      toolCalls: this.#toolCalls,
      citations: this.#citations,
      usage: this.#usage,
      finishReason: this.#finishReason,
      model,
      requestId,
    };
    if (this.#audio.length > 0) result.audio = Buffer.concat(this.#audio);
    return result;
  }
}

/**
 * The deltas a stream would have produced for a complete result, in stream order. The text is already
 * renumbered to the citations, so their remap is the identity.
 */
export function deltasFromResult(result: ChatResult): ChatDelta[] {
  const out: ChatDelta[] = [];
  if (result.citations.length > 0) {
    out.push({ type: 'citations', citations: result.citations, remap: result.citations.map((c) => c.index) });
  }
  if (result.reasoning) out.push({ type: 'reasoning', text: result.reasoning });
  if (result.content) out.push({ type: 'content', text: result.content });
  if (result.audio) out.push({ type: 'audio', data: result.audio });
  if (result.toolCalls.length > 0) out.push({ type: 'tool_calls', calls: result.toolCalls });
  out.push({ type: 'usage', usage: result.usage }, { type: 'finish', reason: result.finishReason });
  return out;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function toolCalls(value: unknown): ToolCall[] {
  if (!Array.isArray(value)) return [];
  return value.map((item) => {
    const c = record(item) ?? {};
    const fn = record(c.function) ?? {};
    const args = typeof fn.arguments === 'string' ? fn.arguments : fn.arguments === undefined ? '' : JSON.stringify(fn.arguments);
    return {
      id: typeof c.id === 'string' ? c.id : '',
      type: 'function' as const,
      function: { name: typeof fn.name === 'string' ? fn.name : '', arguments: args.trim() === '' ? '{}' : args },
    };
  });
}

/** A non-streamed chat-completions response; citations deduplicated and the text's markers renumbered to match. */
export function resultFromChat(json: unknown, requestId: string | undefined, secrets: readonly string[]): ChatResult {
  const body = record(json);
  if (!body) throw new ResponseFormatError('The AI service sent a response that is not a JSON object.', { requestId });
  if (body.error) throw errorFromStreamPayload(body, secrets, requestId);
  if (!Array.isArray(body.choices)) throw new ResponseFormatError('The AI service sent a response without choices.', { requestId });
  const choice = record(body.choices[0]) ?? {};
  const message = record(choice.message) ?? {};
  const { citations, remap } = normalizeCitations(message.annotations);
  const content = typeof message.content === 'string' ? remapCitationMarkers(message.content, remap) : '';
  const reasoning = typeof message.reasoning_content === 'string' ? remapCitationMarkers(message.reasoning_content, remap) : '';
  const result: ChatResult = {
    content,
    reasoning,
    toolCalls: toolCalls(message.tool_calls),
    citations,
    usage: usageFromChat(body.usage),
    finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
    model: typeof body.model === 'string' ? body.model : '',
    requestId,
  };
  const audio = record(message.audio)?.data;
  if (typeof audio === 'string' && audio !== '') result.audio = Buffer.from(audio, 'base64');
  return result;
}

/** A non-streamed Messages-format response (content blocks, stop_reason, input/output tokens). */
export function resultFromMessages(json: unknown, requestId: string | undefined, secrets: readonly string[]): ChatResult {
  const body = record(json);
  if (!body) throw new ResponseFormatError('The AI service sent a response that is not a JSON object.', { requestId });
  if (body.type === 'error' || body.error) throw errorFromStreamPayload(body, secrets, requestId);
  if (!Array.isArray(body.content)) throw new ResponseFormatError('The AI service sent a message without content.', { requestId });
  const content: string[] = [];
  const reasoning: string[] = [];
  const calls: ToolCall[] = [];
  for (const item of body.content) {
    const block = record(item) ?? {};
    if (block.type === 'text' && typeof block.text === 'string') content.push(block.text);
    else if (block.type === 'thinking' && typeof block.thinking === 'string') reasoning.push(block.thinking);
    else if (block.type === 'tool_use') {
      calls.push({
        id: typeof block.id === 'string' ? block.id : '',
        type: 'function',
        function: { name: typeof block.name === 'string' ? block.name : '', arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  return {
    content: content.join(''),
    reasoning: reasoning.join(''),
    toolCalls: calls,
    citations: [],
    usage: usageFromMessages(body.usage),
    finishReason: finishFromStopReason(body.stop_reason),
    model: typeof body.model === 'string' ? body.model : '',
    requestId,
  };
}
