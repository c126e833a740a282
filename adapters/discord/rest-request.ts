import { STATUS_CODES } from 'node:http';
import type { ResponseLike } from 'discord.js';
import { FormData, request } from 'undici';

type RequestInit = Parameters<typeof fetch>[1] & {};

/** discord.js builds uploads with Node's own FormData; undici 8 sends only its own, so the parts move across. */
function bodyFor(body: RequestInit['body']): string | Uint8Array | FormData | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof globalThis.FormData) {
    const form = new FormData();
    for (const [name, value] of body) {
      if (typeof value === 'string') form.append(name, value);
      else form.append(name, value, value.name);
    }
    return form;
  }
  throw new TypeError('unexpected request body from discord.js');
}

function headerRecord(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/**
 * discord.js's REST requests sent with Herald's undici 8. discord.js's own (older) undici hands its requests to
 * the global dispatcher, which undici 8 takes over and which refuses the older one's multipart bodies, so every
 * upload would fail; Node's fetch would work but costs a few milliseconds per call on the reply's first message.
 */
export async function makeRequest(url: string, init: RequestInit): Promise<ResponseLike> {
  const response = await request(url, {
    method: (init.method ?? 'GET') as 'GET',
    headers: init.headers as Record<string, string>,
    body: bodyFor(init.body),
    signal: init.signal ?? undefined,
  });
  const { body, statusCode } = response;
  return {
    body,
    arrayBuffer: () => body.arrayBuffer(),
    json: () => body.json(),
    text: () => body.text(),
    get bodyUsed() {
      return body.bodyUsed;
    },
    headers: new Headers(headerRecord(response.headers)),
    status: statusCode,
    statusText: STATUS_CODES[statusCode] ?? '',
    ok: statusCode >= 200 && statusCode < 300,
  };
}
