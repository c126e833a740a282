import { createHash } from 'node:crypto';
import type { MessagesRequest } from './messages-request.ts';
import { textDeltas } from './pacing.ts';
import type { Pace } from './pacing.ts';
import type { SseEvent } from './sse-writer.ts';
import { limitText } from './text-limits.ts';
import { lastUserTurn, reasoningFor, textReply } from './text-answer.ts';
import { countTokens } from './tokens.ts';
import { turnTokens } from './usage.ts';

export interface MessagesAnswer {
  thinking?: string;
  signature?: string;
  text: string;
  stopReason: 'end_turn' | 'max_tokens' | 'stop_sequence';
  stopSequence: string | null;
  inputTokens: number;
  outputTokens: number;
}

export function answerMessages(request: MessagesRequest): MessagesAnswer {
  const thinking = request.thinking ? reasoningFor(lastUserTurn(request.turns)?.text.trim() ?? '') : undefined;
  const limited = limitText(textReply(request.turns), request.stop, request.maxTokens);
  return {
    thinking,
    signature: thinking && createHash('sha256').update(thinking).digest('base64'),
    text: limited.text,
    stopReason: limited.reason === 'length' ? 'max_tokens' : limited.stopSequence !== undefined ? 'stop_sequence' : 'end_turn',
    stopSequence: limited.stopSequence ?? null,
    inputTokens: request.turns.reduce((sum, t) => sum + turnTokens(t), 0),
    outputTokens: countTokens(limited.text) + countTokens(thinking ?? ''),
  };
}

interface Identity {
  id: string;
  model: string;
}

/** The non-streaming Anthropic-style message object. */
export function messageObject(identity: Identity, answer: MessagesAnswer): unknown {
  const content: unknown[] = [];
  if (answer.thinking !== undefined) content.push({ type: 'thinking', thinking: answer.thinking, signature: answer.signature });
  content.push({ type: 'text', text: answer.text });
  return {
    id: identity.id,
    type: 'message',
    role: 'assistant',
    model: identity.model,
    content,
    stop_reason: answer.stopReason,
    stop_sequence: answer.stopSequence,
    usage: { input_tokens: answer.inputTokens, output_tokens: answer.outputTokens },
  };
}

/** The Anthropic-style event stream: message_start, ping, content blocks, message_delta, message_stop. */
export function messagesStreamEvents(identity: Identity, answer: MessagesAnswer, pace: Pace): SseEvent[] {
  const events: SseEvent[] = [];
  const emit = (type: string, payload: Record<string, unknown>, delayMs = 0) =>
    events.push({ event: type, data: JSON.stringify({ type, ...payload }), delayMs });
  emit('message_start', {
    message: {
      id: identity.id,
      type: 'message',
      role: 'assistant',
      model: identity.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: answer.inputTokens, output_tokens: 1 },
    },
  });
  emit('ping', {});
  let index = 0;
  if (answer.thinking !== undefined) {
    emit('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    for (const d of textDeltas(answer.thinking, pace))
      emit('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: d.text } }, d.delayMs);
    emit('content_block_delta', { index, delta: { type: 'signature_delta', signature: answer.signature } });
    emit('content_block_stop', { index });
    index += 1;
  }
  emit('content_block_start', { index, content_block: { type: 'text', text: '' } });
  const deltas = textDeltas(answer.text, pace);
  deltas.forEach((d, i) => {
    if (i === Math.floor(deltas.length / 2) && i > 0) emit('ping', {});
    emit('content_block_delta', { index, delta: { type: 'text_delta', text: d.text } }, d.delayMs);
  });
  emit('content_block_stop', { index });
  emit('message_delta', {
    delta: { stop_reason: answer.stopReason, stop_sequence: answer.stopSequence },
    usage: { output_tokens: answer.outputTokens },
  });
  emit('message_stop', {});
  events.at(-1)!.tag = 'finish';
  events.at(-2)!.tag = 'finish';
  return events;
}
