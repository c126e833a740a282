import { redactText } from '../log/redact.ts';
import {
  AuthenticationError,
  BadRequestError,
  NotFoundError,
  RateLimitError,
  ServerError,
  ServiceError,
  type ServiceErrorOptions,
} from './errors.ts';

export interface ErrorDetails {
  message?: string;
  type?: string;
  code?: string;
}

const MAX_DETAIL = 300;

function str(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (typeof value === 'number') return String(value);
  return undefined;
}

/** Reads OpenAI-style `{error:{message,type,code}}`, Anthropic-style `{type:'error',error:{type,message}}` or anything else. */
export function parseErrorBody(body: string): ErrorDetails {
  const trimmed = body.trim();
  if (trimmed === '') return {};
  if (trimmed.startsWith('{')) {
    try {
      const json = JSON.parse(trimmed) as Record<string, unknown>;
      const inner = json.error;
      if (inner !== null && typeof inner === 'object') {
        const e = inner as Record<string, unknown>;
        return { message: str(e.message), type: str(e.type), code: str(e.code) };
      }
      const message = str(inner) ?? str(json.message) ?? str(json.detail);
      if (message) return { message, type: str(json.type), code: str(json.code) };
    } catch {
      // Not JSON after all: fall through to the plain-text reading.
    }
  }
  return { message: plainText(trimmed) };
}

/** Proxies answer with HTML pages: keep the title or the visible text, not the markup. */
function plainText(body: string): string | undefined {
  if (/^<(!doctype|html|\?xml)/i.test(body) || /<\/(html|body|h1|title)>/i.test(body)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1]?.trim();
    const h1 = /<h1[^>]*>([^<]*)<\/h1>/i.exec(body)?.[1]?.trim();
    const visible = (title || h1 || body.replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>|<[^>]+>/gi, ' ')).replace(/\s+/g, ' ').trim();
    return visible || undefined;
  }
  return body.replace(/\s+/g, ' ');
}

/** What an unexpected body says, in a few words (a page title, a line of text). */
export function bodyGist(body: string, secrets: readonly string[]): string | undefined {
  const message = parseErrorBody(body).message;
  if (!message) return undefined;
  return redactText(message.length > 100 ? `${message.slice(0, 99)}…` : message, secrets);
}

function clip(text: string): string {
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL - 1)}…` : text;
}

function withDetail(lead: string, details: ErrorDetails, status: number, secrets: readonly string[]): string {
  const detail = details.message ? redactText(clip(details.message), secrets).replace(/[.\s]+$/, '') : '';
  return detail ? `${lead}: ${detail} (HTTP ${status}).` : `${lead} (HTTP ${status}).`;
}

export function describeWait(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 90) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes} minutes`;
  return `${Math.round(minutes / 60)} hours`;
}

export interface ResponseErrorInput {
  status: number;
  body: string;
  requestId?: string;
  retryAfterMs?: number;
  /** Values that must never appear in the message (the API key). */
  secrets: readonly string[];
}

/** The error for a non-2xx answer, with a message a user can act on; it always names the HTTP status. */
export function errorFromResponse(input: ResponseErrorInput): ServiceError {
  const { status, secrets } = input;
  const details = parseErrorBody(input.body);
  const options: ServiceErrorOptions = { status, type: details.type, serviceCode: details.code, requestId: input.requestId };
  if (status === 401) {
    return new AuthenticationError(withDetail('The AI service rejected the API key (authentication failed)', details, status, secrets), options);
  }
  if (status === 403) {
    return new AuthenticationError(
      withDetail('The AI service refused access with this API key (permission denied)', details, status, secrets),
      options,
    );
  }
  if (status === 429) {
    const when = input.retryAfterMs === undefined ? 'try again in a moment' : `try again in ${describeWait(input.retryAfterMs)}`;
    return new RateLimitError(withDetail(`The AI service is rate-limiting requests; ${when}`, details, status, secrets), {
      ...options,
      retryAfterMs: input.retryAfterMs,
    });
  }
  if (status === 404) {
    return new NotFoundError(
      withDetail('The AI service does not know this endpoint or model (check API_BASE_URL and the model names)', details, status, secrets),
      options,
    );
  }
  if (status === 413) {
    return new BadRequestError(withDetail('The request was too large for the AI service', details, status, secrets), options);
  }
  if (status === 400 || status === 422) {
    return new BadRequestError(withDetail('The AI service rejected the request', details, status, secrets), options);
  }
  if (status >= 500) {
    return new ServerError(withDetail('The AI service had an internal problem; try again shortly', details, status, secrets), options);
  }
  return new ServiceError(withDetail('The AI service answered with an error', details, status, secrets), options);
}

/** An error sent inside a stream (an `error` event, or a chunk carrying `error`); no HTTP status applies. */
export function errorFromStreamPayload(payload: unknown, secrets: readonly string[], requestId?: string): ServiceError {
  const inner = (payload as { error?: unknown } | null)?.error;
  const e = (inner !== null && typeof inner === 'object' ? inner : {}) as Record<string, unknown>;
  const message = str(e.message) ?? str(inner);
  const type = str(e.type);
  const detail = message ? `: ${redactText(clip(message), secrets).replace(/[.\s]+$/, '')}` : '';
  const options: ServiceErrorOptions = { type, serviceCode: str(e.code), requestId };
  if (type === 'overloaded_error' || type === 'api_error' || type === 'server_error') {
    return new ServerError(`The AI service failed while answering${detail}.`, options);
  }
  if (type === 'rate_limit_error') return new RateLimitError(`The AI service is rate-limiting requests${detail}.`, options);
  return new ServiceError(`The AI service stopped with an error${detail}.`, options);
}
