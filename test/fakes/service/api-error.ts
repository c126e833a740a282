/** An error the emulator answers with; rendered in the style of the endpoint that raised it. */
export class ApiError extends Error {
  readonly status: number;
  /** OpenAI-style `type` (`invalid_request_error`, `authentication_error`, ...). */
  readonly type: string;
  readonly code: string | null;

  constructor(status: number, type: string, code: string | null, message: string) {
    super(message);
    this.status = status;
    this.type = type;
    this.code = code;
  }
}

export function invalid(code: string, message: string): ApiError {
  return new ApiError(400, 'invalid_request_error', code, message);
}

export function chatErrorBody(error: ApiError): unknown {
  return { error: { message: error.message, type: error.type, code: error.code } };
}

const anthropicTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

export function messagesErrorBody(error: ApiError): unknown {
  const type = anthropicTypes[error.status] ?? 'api_error';
  return { type: 'error', error: { type, message: error.message } };
}

/** The OpenAI-style error type conventionally paired with a status. */
export function typeForStatus(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 404) return 'invalid_request_error';
  if (status === 408) return 'timeout';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}
