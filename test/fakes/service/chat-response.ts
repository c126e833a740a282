import type { ChatAnswer } from './chat-answer.ts';
import { speechSampleRate } from './tts.ts';
import { pcm16ToWav } from './wav.ts';

export interface ResponseIdentity {
  id: string;
  created: number;
  model: string;
}

export function wireToolCalls(answer: ChatAnswer): unknown[] | null {
  if (answer.toolCalls.length === 0) return null;
  return answer.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
}

/** The non-streaming chat completion object (spec §2.4). */
export function chatCompletion(identity: ResponseIdentity, answer: ChatAnswer): unknown {
  const message: Record<string, unknown> = { role: 'assistant', content: answer.content };
  if (answer.reasoning !== undefined) message.reasoning_content = answer.reasoning;
  message.tool_calls = wireToolCalls(answer);
  if (answer.citations) message.annotations = answer.citations;
  if (answer.speech) message.audio = { data: pcm16ToWav(answer.speech.pcm, speechSampleRate).toString('base64') };
  if (answer.transcript) {
    message.audio = null;
    message.audio_tokens = [];
  }
  return {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, message, finish_reason: answer.finishReason }],
    usage: answer.usage,
  };
}
