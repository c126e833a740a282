import type { ChatInput } from '../../src/capabilities/chat.ts';
import { emptyServiceUsage } from '../../src/service/usage.ts';
import type { ChatDelta, ChatResult, ChatStream, Citation, ToolCall, Usage } from '../../src/service/types.ts';

export function usageOf(partial: Partial<Usage> = {}): Usage {
  return { ...emptyServiceUsage(), promptTokens: 10, completionTokens: 5, totalTokens: 15, ...partial };
}

export interface ScriptedAnswer {
  text?: string | string[];
  reasoning?: string;
  calls?: ToolCall[];
  citations?: Citation[];
  usage?: Partial<Usage>;
  /** Thrown after the other deltas. */
  error?: Error;
  /** Waits this long before the first delta (abortable). */
  delayMs?: number;
}

export function toolCall(id: string, name: string, args: unknown): ToolCall {
  return { id, type: 'function', function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) } };
}

/**
 * An in-process stand-in for the chat capability: answers from a script (a list, or a function of the
 * request), records every request.
 */
export function fakeChat(script: ScriptedAnswer[] | ((input: ChatInput, n: number) => ScriptedAnswer)) {
  const requests: ChatInput[] = [];
  const chat = (input: ChatInput): ChatStream => {
    requests.push(structuredClone({ ...input, signal: undefined }));
    const n = requests.length - 1;
    const answer = typeof script === 'function' ? script(input, n) : script[n];
    if (!answer) throw new Error(`fake chat has no answer for request ${n + 1}`);
    return scriptedStream(answer, input.signal);
  };
  return { chat, requests };
}

function scriptedStream(answer: ScriptedAnswer, signal: AbortSignal | undefined): ChatStream {
  const deltas: ChatDelta[] = [];
  if (answer.citations) deltas.push({ type: 'citations', citations: answer.citations, remap: answer.citations.map((c) => c.index) });
  if (answer.reasoning) deltas.push({ type: 'reasoning', text: answer.reasoning });
  const texts = answer.text === undefined ? [] : Array.isArray(answer.text) ? answer.text : [answer.text];
  for (const text of texts) deltas.push({ type: 'content', text });
  if (answer.calls) deltas.push({ type: 'tool_calls', calls: answer.calls });
  deltas.push({ type: 'usage', usage: usageOf(answer.usage) });
  deltas.push({ type: 'finish', reason: answer.calls ? 'tool_calls' : 'stop' });
  async function* iterate(): AsyncGenerator<ChatDelta> {
    if (answer.delayMs) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, answer.delayMs);
        signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      });
    }
    for (const delta of deltas) {
      signal?.throwIfAborted();
      if (answer.error && delta.type === 'usage') throw answer.error;
      yield delta;
    }
  }
  const iterator = iterate();
  return {
    [Symbol.asyncIterator]: () => iterator,
    finalResult: async (): Promise<ChatResult> => {
      throw new Error('not used by the engine');
    },
    abort: () => undefined,
    requestId: undefined,
  };
}
