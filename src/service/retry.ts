import { AbortError } from './errors.ts';

export type Headers = Record<string, string | string[] | undefined>;

/** The longest wait Herald accepts before retrying; a longer Retry-After fails at once, saying when. */
export const MAX_RETRY_WAIT_MS = 60_000;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Milliseconds the service asked us to wait (retry-after-ms, or Retry-After in seconds or as an HTTP date). */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.ceil(Number(ms));
  const value = header(headers, 'retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** 0.5 s × 2^attempt, ±25 % so that many clients do not retry in step. */
export function backoffMs(attempt: number, baseMs: number, random = Math.random): number {
  return Math.round(baseMs * 2 ** attempt * (0.75 + random() * 0.5));
}

/** Resolves after `ms`, or rejects with AbortError as soon as `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortError());
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new AbortError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
