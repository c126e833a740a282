import type { ChatAnswer } from './chat-answer.ts';
import type { ResponseIdentity } from './chat-response.ts';
import { textDeltas } from './pacing.ts';
import type { Pace } from './pacing.ts';
import type { SseEvent } from './sse-writer.ts';

/** Odd byte counts, so audio chunks split 16-bit samples and clients must join across chunks. */
const audioChunkSizes = [4801, 2399, 3333, 1201, 5999, 777];
const argumentFragment = 7;

/** The chunk sequence of a streaming chat completion, ending with `data: [DONE]`. */
export function chatStreamEvents(identity: ResponseIdentity, answer: ChatAnswer, pace: Pace): SseEvent[] {
  const base = { id: identity.id, object: 'chat.completion.chunk', created: identity.created, model: identity.model };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, delayMs = 0): SseEvent => ({
    data: JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] }),
    delayMs,
  });
  const events: SseEvent[] = [];
  // Web search: every source comes in the first chunk.
  events.push(chunk({ role: 'assistant', content: '', ...(answer.citations ? { annotations: answer.citations } : {}) }));
  for (const d of textDeltas(answer.reasoning ?? '', pace)) events.push(chunk({ reasoning_content: d.text }, null, d.delayMs));
  for (const d of textDeltas(answer.content ?? '', pace)) events.push(chunk({ content: d.text }, null, d.delayMs));
  answer.toolCalls.forEach((call, index) => {
    events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (let at = 0; at < call.arguments.length; at += argumentFragment) {
      const fragment = call.arguments.slice(at, at + argumentFragment);
      events.push(
        chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }, null, pace.tokensPerSecond > 0 ? 1000 / pace.tokensPerSecond : 0),
      );
    }
  });
  if (answer.speech) {
    const pcm = answer.speech.pcm;
    for (let at = 0, n = 0; at < pcm.length; n += 1) {
      const size = audioChunkSizes[n % audioChunkSizes.length]!;
      events.push(chunk({ audio: { data: pcm.subarray(at, at + size).toString('base64') } }, null, n === 0 ? 0 : pace.ttsChunkIntervalMs));
      at += size;
      // Chunks without `choices` occur in the audio stream (spec §2.5).
      if (n % 2 === 1) events.push({ data: JSON.stringify({ ...base, usage: answer.usage }) });
    }
  }
  events.push({ ...chunk({}, answer.finishReason), tag: 'finish' });
  events.push({ data: JSON.stringify({ ...base, choices: [], usage: answer.usage }) });
  events.push({ data: '[DONE]', tag: 'done' });
  return events;
}
