import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { answerChat } from './chat-answer.ts';
import { parseChatRequest } from './chat-request.ts';
import { chatCompletion } from './chat-response.ts';
import { chatStreamEvents } from './chat-stream.ts';
import type { StreamFault } from './faults.ts';
import { sendJson } from './reply.ts';
import { writeSse } from './sse-writer.ts';
import type { EmulatorState, RecordedRequest } from './state.ts';
import { reasoningKept } from './tool-calls.ts';

/** POST /v1/chat/completions, after authentication and fault handling. */
export async function chatRoute(
  state: EmulatorState,
  record: RecordedRequest,
  res: ServerResponse,
  fault: StreamFault | undefined,
  signal: AbortSignal,
): Promise<void> {
  const request = await parseChatRequest(record.body, { models: state.models, voices: state.voices });
  record.reasoningKept = reasoningKept(request.turns, state.reasoningSent);
  const rawMessages = (record.body as { messages: unknown[] }).messages;
  const answer = answerChat(request, {
    voices: state.voices,
    transcripts: state.transcripts,
    transcriber: state.transcriber,
    cachedTokens: state.promptCache.cachedTokens(request.model.id, rawMessages, request.turns),
  });
  for (const call of answer.toolCalls) state.reasoningSent.set(call.id, answer.reasoning ?? '');
  const identity = { id: randomBytes(16).toString('hex'), created: Math.floor(Date.now() / 1000), model: request.model.id };
  if (!request.stream) return sendJson(res, record, 200, chatCompletion(identity, answer));
  record.status = 200;
  await writeSse(res, chatStreamEvents(identity, answer, state.pace), fault, signal, record);
}
