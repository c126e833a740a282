import type { CheckResult, HealthCheck } from './health.ts';

export interface ServiceProbeOptions {
  /** Default 2000 ms. */
  timeoutMs?: number;
}

/**
 * A readiness check that the service host answers at all: a HEAD request without credentials, so it can
 * never start a completion or spend tokens. Any HTTP status (401, 404, 405 included) means reachable;
 * a refused connection, DNS failure or timeout means not.
 */
export function serviceProbe(baseUrl: string, options: ServiceProbeOptions = {}): HealthCheck {
  const timeoutMs = options.timeoutMs ?? 2000;
  const url = `${baseUrl.replace(/\/+$/, '')}/`;
  return async (): Promise<CheckResult> => {
    try {
      const response = await fetch(url, { method: 'HEAD', redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
      await response.body?.cancel();
      return { ok: true, detail: `HTTP ${response.status}` };
    } catch (error) {
      return { ok: false, detail: describeFailure(error, timeoutMs) };
    }
  };
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  const cause = error instanceof Error ? (error.cause as NodeJS.ErrnoException | undefined) : undefined;
  if (cause?.code === 'ECONNREFUSED') return 'connection refused';
  if (cause?.code === 'ENOTFOUND' || cause?.code === 'EAI_AGAIN') return `host not found (${cause.code})`;
  // The messages of other failures name addresses: the code alone says what went wrong.
  if (typeof cause?.code === 'string' && /^[\w.-]{1,40}$/.test(cause.code)) return `unreachable (${cause.code})`;
  return 'unreachable';
}
