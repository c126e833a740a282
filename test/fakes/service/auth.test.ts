import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from './emulator.ts';
import type { Emulator } from './emulator.ts';
import { jsonOf, post } from './test-http.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ apiKey: 'k-123' });
});
afterAll(() => emu.close());

const chat = { model: 'svc-v2-flash', messages: [{ role: 'user', content: 'hi' }] };
const messages = { model: 'svc-v2-flash', max_tokens: 50, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };

describe('authentication', () => {
  it.each([
    ['api-key', { 'api-key': 'k-123' }],
    ['Authorization: Bearer', { authorization: 'Bearer k-123' }],
  ])('accepts the %s header on both endpoints', async (_name, headers) => {
    expect((await post(emu, '/v1/chat/completions', chat, headers)).status).toBe(200);
    expect((await post(emu, '/anthropic/v1/messages', messages, headers)).status).toBe(200);
  });

  it.each([
    ['a wrong api-key', { 'api-key': 'nope' }],
    ['a wrong bearer token', { authorization: 'Bearer nope' }],
    ['a non-bearer Authorization', { authorization: 'k-123' }],
    ['x-api-key (ERRATA 4)', { 'x-api-key': 'k-123' }],
    ['no key', {}],
  ])('answers 401 in OpenAI style for %s on chat completions', async (_name, headers) => {
    const response = await post(emu, '/v1/chat/completions', chat, headers);
    expect(response.status).toBe(401);
    const body = await jsonOf(response);
    expect(body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    expect(body.error.message).toMatch(/key|Authorization/i);
  });

  it('answers 401 in Anthropic style on the messages endpoint, refusing x-api-key', async () => {
    const response = await post(emu, '/anthropic/v1/messages', messages, { 'x-api-key': 'k-123' });
    expect(response.status).toBe(401);
    const body = await jsonOf(response);
    expect(body).toEqual({ type: 'error', error: { type: 'authentication_error', message: expect.stringContaining('x-api-key') } });
  });

  it('puts an x-request-id on every response, errors and unknown paths included', async () => {
    const responses = await Promise.all([
      post(emu, '/v1/chat/completions', chat, { 'api-key': 'k-123' }),
      post(emu, '/v1/chat/completions', chat, {}),
      post(emu, '/nowhere', chat, { 'api-key': 'k-123' }),
    ]);
    const ids = responses.map((r) => r.headers.get('x-request-id'));
    expect(responses.map((r) => r.status)).toEqual([200, 401, 404]);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(3);
  });

  it('records every request with its headers, body and answer status', async () => {
    emu.reset();
    await post(emu, '/v1/chat/completions', chat, { authorization: 'Bearer k-123' });
    await post(emu, '/v1/chat/completions', '{oops', { authorization: 'Bearer k-123' });
    expect(emu.requests).toHaveLength(2);
    expect(emu.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', endpoint: 'chat', body: chat, status: 200 });
    expect(emu.requests[0]!.headers.authorization).toBe('Bearer k-123');
    expect(emu.requests[1]).toMatchObject({ body: undefined, rawBody: '{oops', status: 400 });
    emu.reset();
    expect(emu.requests).toHaveLength(0);
  });
});
