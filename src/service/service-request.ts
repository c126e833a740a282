import type { Dispatcher } from 'undici';
import type { Logger } from '../log/logger.ts';
import { redactText } from '../log/redact.ts';
import { errorFromResponse } from './error-response.ts';
import { AbortError, ConnectionError, ServiceError, StreamInterruptedError, TimeoutError, type TimeoutPhase } from './errors.ts';
import { MAX_RETRY_WAIT_MS, backoffMs, isRetryableStatus, retryAfterMs, sleep } from './retry.ts';
import type { ServiceTimeouts, Usage } from './types.ts';
import { Watchdog } from './watchdog.ts';

/** What every request of one client shares. */
export interface ServiceRequestContext {
  dispatcher: Dispatcher;
  origin: string;
  basePath: string;
  headers: Record<string, string>;
  timeouts: ServiceTimeouts;
  maxRetries: number;
  retryBaseMs: number;
  logger: Logger;
  secrets: readonly string[];
}

export interface ServiceRequestInit {
  path: string;
  body: string;
  stream: boolean;
  model: string;
  capability: string;
  signal?: AbortSignal;
}

export interface ResponseStart {
  /** The first body chunk (already received, so the request can no longer be retried); undefined for an empty body. */
  first: Buffer | undefined;
  contentType: string;
}

type Body = Dispatcher.ResponseData['body'];

const MAX_ERROR_BODY = 64 * 1024;

/** The caller stopped reading: not an error, nothing to report. */
export const STOPPED = Symbol('stopped');

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function timeoutMessage(phase: TimeoutPhase, ms: number): string {
  if (phase === 'connect') return `Could not connect to the AI service within ${seconds(ms)}.`;
  if (phase === 'first_byte') return `The AI service did not start answering within ${seconds(ms)}.`;
  return `The AI service stopped sending its answer for ${seconds(ms)}.`;
}

function errorCode(error: unknown): string {
  let e = error as { code?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 4; depth++) {
    if (typeof e.code === 'string' && e.code !== 'UND_ERR_SOCKET') return e.code;
    e = e.cause as typeof e;
  }
  return (error as { code?: string } | undefined)?.code ?? (error as Error | undefined)?.name ?? 'unknown';
}

const CONNECTION_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  EPIPE: 'connection closed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'connection closed by the other side',
  UND_ERR_CLOSED: 'connection closed',
};

/**
 * One logical request to the service: the attempts (retried only while no byte of the answer has
 * arrived), the first-byte and idle timers, reading the body, and the one log line at the end.
 */
export class ServiceRequest {
  requestId: string | undefined;
  readonly #ctx: ServiceRequestContext;
  readonly #init: ServiceRequestInit;
  readonly #started = performance.now();
  readonly #cancel = new AbortController();
  readonly #watchdog: Watchdog;
  #attempt = 0;
  #controller: AbortController | undefined;
  #timedOut: TimeoutError | undefined;
  #stopped = false;
  #body: Body | undefined;
  #chunks: AsyncIterator<Buffer> | undefined;
  #ended = false;
  #status = 0;
  #ttfbMs: number | undefined;
  #retryAfterMs: number | undefined;
  #settled = false;
  readonly #onCallerAbort = (): void => this.#cancel.abort();

  constructor(ctx: ServiceRequestContext, init: ServiceRequestInit) {
    this.#ctx = ctx;
    this.#init = init;
    this.#watchdog = new Watchdog((phase, limitMs) => {
      this.#timedOut = new TimeoutError(timeoutMessage(phase, limitMs), { phase, timeoutMs: limitMs, requestId: this.requestId });
      this.#controller?.abort();
    });
    this.#cancel.signal.addEventListener('abort', () => this.#controller?.abort(), { once: true });
  }

  /** Sends the request, retrying as allowed, until a 2xx answer's first body chunk has arrived. */
  async open(): Promise<ResponseStart> {
    // Listening only from here, so a stream that is never read leaves nothing on the caller's signal.
    if (this.#init.signal?.aborted) this.#cancel.abort();
    else this.#init.signal?.addEventListener('abort', this.#onCallerAbort, { once: true });
    for (;;) {
      try {
        return await this.#tryOnce();
      } catch (error) {
        const failure = this.classify(error, false);
        if (failure === STOPPED) throw error;
        const wait = this.#retryWait(failure);
        if (wait === undefined) throw failure;
        this.#ctx.logger.debug(
          {
            capability: this.#init.capability,
            model: this.#init.model,
            attempt: this.#attempt + 1,
            status: failure.status,
            code: failure.code,
            waitMs: wait,
          },
          'service request failed before any answer; retrying',
        );
        this.#release(true);
        await sleep(wait, this.#cancel.signal);
        this.#attempt++;
        this.#timedOut = undefined;
      }
    }
  }

  /** The next body chunk, or undefined at the end of the body. */
  async next(): Promise<Buffer | undefined> {
    this.#watchdog.wait();
    const step = await this.#chunks!.next();
    this.#watchdog.hold();
    if (step.done) {
      this.#ended = true;
      this.#watchdog.stop();
      return undefined;
    }
    return step.value;
  }

  /** The whole body as text (for non-streamed answers). */
  async readAll(first: Buffer | undefined): Promise<string> {
    if (!first) return '';
    const parts = [first];
    for (let chunk = await this.next(); chunk; chunk = await this.next()) parts.push(chunk);
    return Buffer.concat(parts).toString('utf8');
  }

  /** The caller no longer wants the answer: close the connection, report nothing. */
  stop(): void {
    if (this.#settled) return;
    this.#stopped = true;
    this.#cancel.abort();
  }

  /**
   * Turns whatever was thrown into the error to show (with the key scrubbed), or STOPPED when the
   * caller itself stopped the request.
   */
  classify(error: unknown, received = this.#ttfbMs !== undefined): ServiceError | typeof STOPPED {
    if (this.#stopped) return STOPPED;
    let failure: ServiceError;
    if (this.#timedOut) failure = this.#timedOut;
    else if (error instanceof ServiceError) failure = error;
    else if (this.#cancel.signal.aborted) failure = new AbortError(undefined, { requestId: this.requestId, cause: error });
    else failure = this.#transportError(error, received);
    failure.message = redactText(failure.message, this.#ctx.secrets);
    if (failure.stack) failure.stack = redactText(failure.stack, this.#ctx.secrets);
    return failure;
  }

  /** Ends the request: writes its log line and frees the connection (kept alive when the body was read to the end). */
  settle(outcome: { usage?: Usage; error?: ServiceError | typeof STOPPED }): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#watchdog.stop();
    this.#init.signal?.removeEventListener('abort', this.#onCallerAbort);
    this.#release(outcome.error !== undefined);
    const error = outcome.error;
    const line = {
      capability: this.#init.capability,
      model: this.#init.model,
      endpoint: this.#init.path,
      stream: this.#init.stream,
      requestId: this.requestId,
      status: this.#status || undefined,
      attempts: this.#attempt + 1,
      ttfbMs: this.#ttfbMs === undefined ? undefined : Math.round(this.#ttfbMs),
      totalMs: Math.round(performance.now() - this.#started),
      outcome: error === undefined ? 'ok' : error === STOPPED ? 'stopped' : error.code,
      ...(outcome.usage && {
        usage: { prompt: outcome.usage.promptTokens, completion: outcome.usage.completionTokens, total: outcome.usage.totalTokens },
      }),
    };
    if (error === undefined || error === STOPPED || error.code === 'aborted') this.#ctx.logger.info(line, 'service request');
    else this.#ctx.logger.warn({ ...line, error: error.message }, 'service request failed');
  }

  async #tryOnce(): Promise<ResponseStart> {
    if (this.#cancel.signal.aborted) throw new AbortError();
    const controller = new AbortController();
    this.#controller = controller;
    this.#retryAfterMs = undefined;
    const { timeouts } = this.#ctx;
    const response = await this.#ctx.dispatcher.request({
      origin: this.#ctx.origin,
      path: this.#ctx.basePath + this.#init.path,
      method: 'POST',
      headers: this.#ctx.headers,
      body: this.#init.body,
      signal: controller.signal,
      headersTimeout: timeouts.firstByteMs,
      bodyTimeout: 0,
    });
    this.#status = response.statusCode;
    this.requestId = header(response.headers, 'x-request-id') ?? header(response.headers, 'request-id');
    this.#body = response.body;
    this.#ended = false;
    this.#chunks = response.body[Symbol.asyncIterator]();
    this.#watchdog.arm('first_byte', timeouts.firstByteMs);
    if (response.statusCode < 200 || response.statusCode >= 300) {
      this.#retryAfterMs = retryAfterMs(response.headers);
      const text = await this.#readLimited();
      throw errorFromResponse({
        status: response.statusCode,
        body: text,
        requestId: this.requestId,
        retryAfterMs: this.#retryAfterMs,
        secrets: this.#ctx.secrets,
      });
    }
    const first = await this.next();
    this.#ttfbMs = performance.now() - this.#started;
    if (!this.#ended) this.#watchdog.arm('idle', timeouts.idleMs);
    return { first, contentType: header(response.headers, 'content-type') ?? '' };
  }

  async #readLimited(): Promise<string> {
    const parts: Buffer[] = [];
    let size = 0;
    for (let chunk = await this.next(); chunk && size < MAX_ERROR_BODY; chunk = await this.next()) {
      parts.push(chunk);
      size += chunk.length;
    }
    return Buffer.concat(parts).subarray(0, MAX_ERROR_BODY).toString('utf8');
  }

  /** How long to wait before the next attempt, or undefined when this failure is final. */
  #retryWait(failure: ServiceError): number | undefined {
    if (this.#attempt >= this.#ctx.maxRetries) return undefined;
    const retryable =
      failure instanceof ConnectionError ||
      (failure instanceof TimeoutError && failure.phase === 'connect') ||
      (failure.status !== undefined && isRetryableStatus(failure.status));
    if (!retryable) return undefined;
    // Honoured on any status that sent it; beyond the limit the 429 message already tells when to come back.
    const asked = failure.status !== undefined ? this.#retryAfterMs : undefined;
    if (asked !== undefined && asked > MAX_RETRY_WAIT_MS) return undefined;
    return asked ?? backoffMs(this.#attempt, this.#ctx.retryBaseMs);
  }

  #transportError(error: unknown, received: boolean): ServiceError {
    const code = errorCode(error);
    const options = { requestId: this.requestId, cause: error };
    const { timeouts } = this.#ctx;
    if (code === 'UND_ERR_CONNECT_TIMEOUT') {
      return new TimeoutError(timeoutMessage('connect', timeouts.connectMs), { ...options, phase: 'connect', timeoutMs: timeouts.connectMs });
    }
    if (code === 'UND_ERR_HEADERS_TIMEOUT') {
      return new TimeoutError(timeoutMessage('first_byte', timeouts.firstByteMs), {
        ...options,
        phase: 'first_byte',
        timeoutMs: timeouts.firstByteMs,
      });
    }
    const words = CONNECTION_WORDS[code] ?? code;
    if (received) return new StreamInterruptedError(`The AI service's answer broke off partway through (${words}).`, options);
    return new ConnectionError(`Could not reach the AI service (${words}).`, options);
  }

  /** Frees the current attempt's connection: drained for reuse when complete, closed otherwise. */
  #release(abort: boolean): void {
    this.#watchdog.stop();
    const body = this.#body;
    this.#body = undefined;
    this.#chunks = undefined;
    if (!body || this.#ended) return;
    if (abort) this.#controller?.abort();
    else body.dump().catch(() => undefined);
  }
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
