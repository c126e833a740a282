import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Json } from './state.ts';

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, text: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}

export interface ParsedRequest {
  args: Json;
  /** `token` sent as a form field, which Slack still honours for form-encoded posts. */
  formToken?: string;
  /** Slack answers a JSON post without `charset` with a `missing_charset` warning. */
  missingCharset: boolean;
}

/**
 * Parses a Web API call the ways Slack accepts one: query string, form-encoded, multipart or JSON body.
 * Returns a Slack error name when the body cannot be read.
 */
export async function parseApiRequest(req: IncomingMessage, body: Buffer, url: URL): Promise<ParsedRequest | { error: string }> {
  const args: Json = Object.fromEntries(url.searchParams);
  const contentType = (req.headers['content-type'] ?? '').toLowerCase();
  let formToken = typeof args.token === 'string' ? args.token : undefined;
  let missingCharset = false;
  if (req.method === 'POST' && body.length > 0) {
    if (contentType.startsWith('application/json')) {
      missingCharset = !/charset=/.test(contentType);
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        return { error: 'invalid_json' };
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { error: 'json_not_object' };
      // A JSON body cannot carry the token: Slack reads it only from the Authorization header.
      const { token: _ignored, ...rest } = parsed as Json;
      Object.assign(args, rest);
    } else if (contentType.startsWith('application/x-www-form-urlencoded')) {
      const form = Object.fromEntries(new URLSearchParams(body.toString('utf8')));
      Object.assign(args, form);
      if (typeof form.token === 'string') formToken = form.token;
    } else if (contentType.startsWith('multipart/form-data')) {
      let form: FormData;
      try {
        form = await new Request('http://fake.invalid/', {
          method: 'POST',
          headers: { 'content-type': req.headers['content-type'] ?? '' },
          body: new Uint8Array(body),
        }).formData();
      } catch {
        return { error: 'invalid_form_data' };
      }
      for (const [key, value] of form) args[key] = value;
      if (typeof args.token === 'string') formToken = args.token;
    } else if (contentType === '') {
      return { error: 'missing_post_type' };
    } else {
      return { error: 'invalid_post_type' };
    }
  }
  delete args.token;
  return { args, ...(formToken !== undefined ? { formToken } : {}), missingCharset };
}

export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : undefined;
}
