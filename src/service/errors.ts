import { HeraldError } from '../errors.ts';

export type ServiceErrorCode =
  | 'service_error'
  | 'authentication_failed'
  | 'rate_limited'
  | 'bad_request'
  | 'not_found'
  | 'server_error'
  | 'connection_failed'
  | 'timeout'
  | 'aborted'
  | 'stream_interrupted'
  | 'bad_response';

export interface ServiceErrorOptions {
  code?: ServiceErrorCode;
  status?: number;
  /** The service's own error type (`error.type` in its body), when it sent one. */
  type?: string;
  /** The service's own error code (`error.code` in an OpenAI-style body), when it sent one. */
  serviceCode?: string;
  requestId?: string;
  /** When the service said how long to wait before trying again. */
  retryAfterMs?: number;
  cause?: unknown;
}

/**
 * Anything that went wrong talking to the AI service. `message` is fit to show a user and never
 * holds the API key; `code` is Herald's stable code, `type`/`serviceCode` are what the service said.
 */
export class ServiceError extends HeraldError {
  declare readonly code: ServiceErrorCode;
  readonly status: number | undefined;
  readonly type: string | undefined;
  readonly serviceCode: string | undefined;
  readonly requestId: string | undefined;

  constructor(message: string, options: ServiceErrorOptions = {}) {
    const code = options.code ?? 'service_error';
    super(message, { code, kind: code === 'aborted' ? 'cancelled' : 'service', retryAfterMs: options.retryAfterMs, cause: options.cause });
    this.status = options.status;
    this.type = options.type;
    this.serviceCode = options.serviceCode;
    this.requestId = options.requestId;
  }
}

/** 401/403: the key is missing, wrong or lacks permission. */
export class AuthenticationError extends ServiceError {
  constructor(message: string, options: ServiceErrorOptions = {}) {
    super(message, { ...options, code: 'authentication_failed' });
  }
}

/** 429, after the retries allowed; `retryAfterMs` says when the service will accept again, if it said. */
export class RateLimitError extends ServiceError {
  constructor(message: string, options: ServiceErrorOptions = {}) {
    super(message, { ...options, code: 'rate_limited' });
  }
}

/** 400/413/422: the service refused the request as sent. */
export class BadRequestError extends ServiceError {
  constructor(message: string, options: ServiceErrorOptions = {}) {
    super(message, { ...options, code: 'bad_request' });
  }
}

/** 404: wrong base URL, path prefix or model. */
export class NotFoundError extends ServiceError {
  constructor(message: string, options: ServiceErrorOptions = {}) {
    super(message, { ...options, code: 'not_found' });
  }
}

/** 5xx after the retries allowed. */
export class ServerError extends ServiceError {
  constructor(message: string, options: ServiceErrorOptions = {}) {
    super(message, { ...options, code: 'server_error' });
  }
}

/** The service could not be reached, or the connection dropped before any of the answer arrived. */
export class ConnectionError extends ServiceError {
  constructor(message: string, options: ServiceErrorOptions = {}) {
    super(message, { ...options, code: 'connection_failed' });
  }
}

export type TimeoutPhase = 'connect' | 'first_byte' | 'idle';

/** No connection, no first byte, or a silence between chunks longer than allowed. */
export class TimeoutError extends ServiceError {
  readonly phase: TimeoutPhase;
  readonly timeoutMs: number;

  constructor(message: string, options: ServiceErrorOptions & { phase: TimeoutPhase; timeoutMs: number }) {
    super(message, { ...options, code: 'timeout' });
    this.phase = options.phase;
    this.timeoutMs = options.timeoutMs;
  }
}

/** The caller aborted (its signal fired); not a failure of the service. */
export class AbortError extends ServiceError {
  constructor(message = 'The request to the AI service was cancelled.', options: ServiceErrorOptions = {}) {
    super(message, { ...options, code: 'aborted' });
  }
}

/** Part of the answer arrived, then the connection broke; never retried (the partial answer would repeat). */
export class StreamInterruptedError extends ServiceError {
  readonly partial = true;

  constructor(message: string, options: ServiceErrorOptions = {}) {
    super(message, { ...options, code: 'stream_interrupted' });
  }
}

/** The service answered with something that is not the format it promised (unparseable JSON, a bad chunk). */
export class ResponseFormatError extends ServiceError {
  constructor(message: string, options: ServiceErrorOptions = {}) {
    super(message, { ...options, code: 'bad_response' });
  }
}
