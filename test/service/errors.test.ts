import { describe, expect, it } from 'vitest';
import { HeraldError } from '../../src/errors.ts';
import { errorFromResponse, parseErrorBody } from '../../src/service/error-response.ts';
import { AuthenticationError, BadRequestError, NotFoundError, RateLimitError, ServerError, ServiceError } from '../../src/service/errors.ts';
import { backoffMs, retryAfterMs } from '../../src/service/retry.ts';

describe('parseErrorBody', () => {
  it('reads the OpenAI style', () => {
    expect(parseErrorBody('{"error":{"message":"Bad model","type":"invalid_request_error","code":"model_not_found"}}')).toEqual({
      message: 'Bad model',
      type: 'invalid_request_error',
      code: 'model_not_found',
    });
  });

  it('reads the Anthropic style', () => {
    expect(parseErrorBody('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toEqual({
      message: 'Overloaded',
      type: 'overloaded_error',
      code: undefined,
    });
  });

  it('reads plain text, other JSON and HTML pages', () => {
    expect(parseErrorBody('upstream connect error\n or disconnect')).toEqual({ message: 'upstream connect error or disconnect' });
    expect(parseErrorBody('{"message":"quota exceeded","code":42}')).toMatchObject({ message: 'quota exceeded', code: '42' });
    expect(parseErrorBody('<html><body><h1>503 Service Unavailable</h1>No server is available.</body></html>')).toEqual({
      message: '503 Service Unavailable',
    });
    expect(parseErrorBody('<html><body><p>Gateway   broke</p><script>x()</script></body></html>')).toEqual({ message: 'Gateway broke' });
    expect(parseErrorBody('')).toEqual({});
  });
});

describe('errorFromResponse', () => {
  const make = (status: number, body = '', retryAfter?: number) =>
    errorFromResponse({ status, body, secrets: ['sk-live-abcdef'], retryAfterMs: retryAfter, requestId: 'r1' });

  it('picks the class by status and keeps status, type, code and request id', () => {
    const error = make(400, '{"error":{"message":"messages is required.","type":"invalid_request_error","code":"missing_field"}}');
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toBeInstanceOf(HeraldError);
    expect(error).toMatchObject({
      name: 'BadRequestError',
      status: 400,
      code: 'bad_request',
      type: 'invalid_request_error',
      serviceCode: 'missing_field',
      requestId: 'r1',
    });
    expect(error.message).toBe('The AI service rejected the request: messages is required (HTTP 400).');
    expect(make(401)).toBeInstanceOf(AuthenticationError);
    expect(make(403).message).toBe('The AI service refused access with this API key (permission denied) (HTTP 403).');
    expect(make(404)).toBeInstanceOf(NotFoundError);
    expect(make(413)).toBeInstanceOf(BadRequestError);
    expect(make(422)).toBeInstanceOf(BadRequestError);
    expect(make(529)).toBeInstanceOf(ServerError);
    expect(make(418).message).toBe('The AI service answered with an error (HTTP 418).');
  });

  it('tells when to come back after a 429', () => {
    expect(make(429, '', 2000).message).toBe('The AI service is rate-limiting requests; try again in 2 seconds (HTTP 429).');
    expect(make(429, '', 600_000)).toMatchObject({ retryAfterMs: 600_000, message: expect.stringContaining('try again in 10 minutes') });
    expect(make(429)).toBeInstanceOf(RateLimitError);
  });

  it('never repeats the key the service echoed', () => {
    const error = make(401, '{"error":{"message":"Incorrect API key provided: sk-live-abcdef"}}');
    expect(error.message).not.toContain('sk-live-abcdef');
    expect(error.message).toContain('[redacted]');
  });
});

describe('retry timing', () => {
  it('reads retry-after-ms, Retry-After seconds and HTTP dates', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs({ 'retry-after-ms': '250' }, now)).toBe(250);
    expect(retryAfterMs({ 'retry-after': '3' }, now)).toBe(3000);
    expect(retryAfterMs({ 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }, now)).toBe(30_000);
    expect(retryAfterMs({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(retryAfterMs({}, now)).toBeUndefined();
  });

  it('backs off exponentially from 0.5 s with ±25 % jitter', () => {
    expect(backoffMs(0, 500, () => 0)).toBe(375);
    expect(backoffMs(0, 500, () => 1)).toBe(625);
    expect(backoffMs(2, 500, () => 0.5)).toBe(2000);
  });
});
