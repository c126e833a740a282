import type { Emulator } from './emulator.ts';

export interface SseMessage {
  event?: string;
  data: string;
}

/** POSTs JSON with the emulator's key in the api-key header unless other headers are given. */
export function post(emulator: Emulator, path: string, body: unknown, headers?: Record<string, string>): Promise<Response> {
  return fetch(`${emulator.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(headers ?? { 'api-key': emulator.apiKey }) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A JSON response body, loosely typed for assertions. */
export async function jsonOf(response: Response): Promise<any> {
  return response.json();
}

export async function postChat(emulator: Emulator, body: unknown): Promise<Record<string, any>> {
  const response = await post(emulator, '/v1/chat/completions', body);
  if (response.status !== 200) throw new Error(`status ${response.status}: ${await response.text()}`);
  return (await response.json()) as Record<string, any>;
}

/** Parses an SSE byte stream by the EventSource rules (any line ending, comments skipped). */
export function parseSse(text: string): SseMessage[] {
  const messages: SseMessage[] = [];
  let event: string | undefined;
  let data: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length > 0) messages.push({ event, data: data.join('\n') });
      event = undefined;
      data = [];
    } else if (!line.startsWith(':')) {
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      if (field === 'data') data.push(value);
    }
  }
  return messages;
}

/** Reads a whole response body chunk by chunk, keeping the raw chunks as received. */
export async function readChunks(response: Response): Promise<{ chunks: Uint8Array[]; text: string }> {
  const chunks: Uint8Array[] = [];
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of response.body!) {
    chunks.push(chunk);
    text += decoder.decode(chunk, { stream: true });
  }
  return { chunks, text: text + decoder.decode() };
}

/** The JSON chunks of a chat-completions stream, without `[DONE]`. */
export async function chatChunks(response: Response): Promise<{ chunks: Record<string, any>[]; done: boolean }> {
  const messages = parseSse((await readChunks(response)).text);
  const done = messages.at(-1)?.data === '[DONE]';
  return { chunks: messages.filter((m) => m.data !== '[DONE]').map((m) => JSON.parse(m.data)), done };
}

export function streamedText(chunks: Record<string, any>[], field: 'content' | 'reasoning_content' = 'content'): string {
  return chunks.map((c) => c.choices?.[0]?.delta?.[field] ?? '').join('');
}
