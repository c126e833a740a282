import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { StreamFault } from './faults.ts';
import { parseMessagesRequest } from './messages-request.ts';
import { answerMessages, messageObject, messagesStreamEvents } from './messages-response.ts';
import { sendJson } from './reply.ts';
import { writeSse } from './sse-writer.ts';
import type { EmulatorState, RecordedRequest } from './state.ts';

/** POST /<alt>/v1/messages, after authentication and fault handling. */
export async function messagesRoute(
  state: EmulatorState,
  record: RecordedRequest,
  res: ServerResponse,
  fault: StreamFault | undefined,
  signal: AbortSignal,
): Promise<void> {
  const request = await parseMessagesRequest(record.body, state.models);
  const answer = answerMessages(request);
  const identity = { id: `msg_${randomBytes(12).toString('hex')}`, model: request.model.id };
  if (!request.stream) return sendJson(res, record, 200, messageObject(identity, answer));
  record.status = 200;
  await writeSse(res, messagesStreamEvents(identity, answer, state.pace), fault, signal, record);
}
