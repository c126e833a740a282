import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { ApiError, chatErrorBody, invalid, messagesErrorBody, typeForStatus } from './api-error.ts';
import { authProblem } from './auth.ts';
import { chatRoute } from './chat-route.ts';
import { takeFault } from './faults.ts';
import { messagesRoute } from './messages-route.ts';
import { sendJson, sendRaw } from './reply.ts';
import { sleep } from './sleep.ts';
import type { EmulatorState, RecordedRequest } from './state.ts';

/** Reads the whole body; null when it exceeds the limit (the rest is drained, not kept). */
async function readBody(req: IncomingMessage, limit: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= limit) chunks.push(chunk as Buffer);
  }
  return size > limit ? null : Buffer.concat(chunks).toString('utf8');
}

function endpointOf(state: EmulatorState, pathname: string): RecordedRequest['endpoint'] {
  if (pathname === '/v1/chat/completions') return 'chat';
  if (pathname === `/${state.altPrefix}/v1/messages`) return 'messages';
  return null;
}

function parseJson(raw: string | null): { ok: boolean; value: unknown } {
  if (raw === null) return { ok: false, value: undefined };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch {
    return { ok: false, value: undefined };
  }
}

async function handle(state: EmulatorState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const requestId = randomBytes(16).toString('hex');
  res.setHeader('x-request-id', requestId);
  const path = req.url ?? '/';
  const endpoint = endpointOf(state, new URL(path, 'http://emulator').pathname);
  const raw = await readBody(req, state.maxBodyBytes);
  const json = parseJson(raw);
  const record: RecordedRequest = {
    method: req.method ?? 'GET',
    path,
    headers: req.headers,
    body: json.value,
    rawBody: raw ?? '',
    endpoint,
    requestId,
    receivedAt: Date.now(),
  };
  state.requests.push(record);
  const aborted = new AbortController();
  res.on('close', () => {
    record.closed ??= { at: Date.now(), byClient: !res.writableFinished };
    aborted.abort();
  });
  const fail = (error: ApiError, headers: Record<string, string> = {}) =>
    sendJson(res, record, error.status, endpoint === 'messages' ? messagesErrorBody(error) : chatErrorBody(error), headers);

  if (!endpoint) return fail(new ApiError(404, 'invalid_request_error', 'not_found', `Unknown path ${path}.`));
  if (req.method !== 'POST') return fail(new ApiError(405, 'invalid_request_error', 'method_not_allowed', `Use POST for ${path}.`));
  const problem = authProblem(req.headers, state.apiKey);
  if (problem) return fail(new ApiError(401, 'authentication_error', 'invalid_api_key', problem));
  if (raw === null)
    return fail(new ApiError(413, 'invalid_request_error', 'request_too_large', `The request body exceeds ${state.maxBodyBytes} bytes.`));

  const body = json.value as { model?: unknown; stream?: unknown } | undefined;
  const fault = takeFault(state.faults, { endpoint, model: body?.model, stream: body?.stream === true });
  if (fault?.delayMs) await sleep(fault.delayMs, aborted.signal);
  if (fault?.status !== undefined) {
    const headers: Record<string, string> = fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {};
    if (fault.body !== undefined)
      return sendRaw(res, record, fault.status, fault.body, { 'content-type': fault.contentType ?? 'text/html', ...headers });
    return fail(
      new ApiError(fault.status, typeForStatus(fault.status), `emulated_${fault.status}`, `Emulated failure with status ${fault.status}.`),
      headers,
    );
  }
  if (!json.ok) return fail(invalid('invalid_json', 'The request body is not valid JSON.'));
  try {
    const route = endpoint === 'chat' ? chatRoute : messagesRoute;
    await route(state, record, res, fault?.stream, aborted.signal);
  } catch (error) {
    if (error instanceof ApiError && !res.headersSent) return fail(error);
    throw error;
  }
}

export function createEmulatorServer(state: EmulatorState): Server {
  return createServer((req, res) => {
    handle(state, req, res).catch((error: unknown) => {
      if (res.headersSent) return res.destroy();
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `Emulator bug: ${(error as Error).message}`, type: 'server_error', code: null } }));
    });
  });
}
