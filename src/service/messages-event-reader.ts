import { excerpt } from './chat-chunk-reader.ts';
import { errorFromStreamPayload } from './error-response.ts';
import { ResponseFormatError } from './errors.ts';
import { ToolCallAssembler } from './tool-call-assembler.ts';
import type { ChatDelta, Usage } from './types.ts';
import { usageFromMessages } from './usage.ts';

/** Messages-format stop reasons in the chat-completions vocabulary, so callers test one set. */
export function finishFromStopReason(reason: unknown): string | null {
  if (typeof reason !== 'string') return null;
  if (reason === 'end_turn' || reason === 'stop_sequence') return 'stop';
  if (reason === 'max_tokens') return 'length';
  if (reason === 'tool_use') return 'tool_calls';
  return reason;
}

interface MessagesEvent {
  type?: string;
  index?: number;
  message?: { model?: unknown; usage?: unknown };
  content_block?: { type?: string; id?: string; name?: string; input?: unknown; text?: unknown; thinking?: unknown };
  delta?: { type?: string; text?: unknown; thinking?: unknown; partial_json?: unknown; stop_reason?: unknown };
  usage?: unknown;
  error?: unknown;
}

/** Turns Messages-format SSE events (message_start … message_stop) into the same ChatDeltas as chat completions. */
export class MessagesEventReader {
  model = '';
  done = false;
  readonly #secrets: readonly string[];
  readonly #tools = new ToolCallAssembler();
  #usage: Usage | undefined;
  #finishReason: string | null = null;

  constructor(secrets: readonly string[]) {
    this.#secrets = secrets;
  }

  read(eventName: string | undefined, data: string, out: ChatDelta[], requestId?: string): void {
    if (this.done) return;
    let event: MessagesEvent;
    try {
      event = JSON.parse(data) as MessagesEvent;
    } catch (cause) {
      throw new ResponseFormatError(`The AI service sent a malformed stream event (${excerpt(data)}).`, { requestId, cause });
    }
    switch (event?.type ?? eventName) {
      case 'message_start':
        if (typeof event.message?.model === 'string') this.model = event.message.model;
        this.#usage = usageFromMessages(event.message?.usage, this.#usage);
        break;
      case 'content_block_start': {
        const block = event.content_block;
        const index = event.index ?? 0;
        if (block?.type === 'tool_use') {
          const input = block.input && typeof block.input === 'object' && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : '';
          this.#tools.start(index, block.id ?? '', block.name ?? '', input);
        } else if (block?.type === 'text' && typeof block.text === 'string' && block.text !== '') {
          out.push({ type: 'content', text: block.text });
        } else if (block?.type === 'thinking' && typeof block.thinking === 'string' && block.thinking !== '') {
          out.push({ type: 'reasoning', text: block.thinking });
        }
        break;
      }
      case 'content_block_delta': {
        const delta = event.delta;
        if (delta?.type === 'text_delta' && typeof delta.text === 'string' && delta.text !== '') {
          out.push({ type: 'content', text: delta.text });
        } else if (delta?.type === 'thinking_delta' && typeof delta.thinking === 'string' && delta.thinking !== '') {
          out.push({ type: 'reasoning', text: delta.thinking });
        } else if (delta?.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
          this.#tools.appendArguments(event.index ?? 0, delta.partial_json);
        }
        break;
      }
      case 'message_delta':
        if (event.delta?.stop_reason !== undefined) this.#finishReason = finishFromStopReason(event.delta.stop_reason);
        if (event.usage) this.#usage = usageFromMessages(event.usage, this.#usage);
        break;
      case 'message_stop':
        this.done = true;
        break;
      case 'error':
        throw errorFromStreamPayload(event, this.#secrets, requestId);
      default:
        // ping, content_block_stop, signature deltas and future event types carry nothing to show.
        break;
    }
  }

  end(out: ChatDelta[]): void {
    if (this.#tools.size > 0) out.push({ type: 'tool_calls', calls: this.#tools.take() });
    if (this.#usage) out.push({ type: 'usage', usage: this.#usage });
    out.push({ type: 'finish', reason: this.#finishReason });
  }
}
