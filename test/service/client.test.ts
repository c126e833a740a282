import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../src/service/client.ts';
import type { ChatRequest } from '../../src/service/types.ts';
import { startEmulator, unicodeReply, type Emulator } from '../fakes/service/emulator.ts';
import { collect, logRecords, testClient, textOf } from './harness.ts';

let emu: Emulator;
let client: ServiceClient;
let lines: string[];

beforeAll(async () => {
  emu = await startEmulator();
  ({ client, lines } = testClient(emu.url, emu.apiKey));
});
afterAll(async () => {
  await client.close();
  await emu.close();
});
afterEach(() => {
  emu.reset();
  lines.length = 0;
});

const ask = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'svc-v2.5-pro',
  messages: [{ role: 'user', content }],
  ...extra,
});

describe('authentication', () => {
  it('sends Authorization: Bearer by default and api-key when configured', async () => {
    await client.chat(ask('hello'));
    expect(emu.requests[0]!.headers.authorization).toBe(`Bearer ${emu.apiKey}`);
    expect(emu.requests[0]!.headers['api-key']).toBeUndefined();

    const other = testClient(emu.url, emu.apiKey, { auth: 'api-key' });
    const result = await other.client.chat(ask('hello'));
    await other.client.close();
    expect(result.content).toBe('Echo: hello');
    expect(emu.requests[1]!.headers['api-key']).toBe(emu.apiKey);
    expect(emu.requests[1]!.headers.authorization).toBeUndefined();
  });

  it('reports a rejected key as an AuthenticationError a user can act on', async () => {
    const wrong = testClient(emu.url, 'wrong-key-123456');
    const error = await wrong.client.chat(ask('hello')).catch((e: unknown) => e);
    await wrong.client.close();
    expect(error).toMatchObject({
      name: 'AuthenticationError',
      code: 'authentication_failed',
      status: 401,
      type: 'authentication_error',
      serviceCode: 'invalid_api_key',
    });
    expect((error as Error).message).toMatch(/^The AI service rejected the API key \(authentication failed\): .*\(HTTP 401\)\.$/);
    expect(emu.requests).toHaveLength(1);
  });
});

describe('chat completions', () => {
  it('returns the answer, reasoning, usage, model and request id without streaming', async () => {
    const result = await client.chat(ask('unicode'));
    expect(result).toMatchObject({ content: unicodeReply, finishReason: 'stop', model: 'svc-v2.5-pro', toolCalls: [], citations: [] });
    expect(result.reasoning).toContain('unicode');
    expect(result.usage.totalTokens).toBe(result.usage.promptTokens + result.usage.completionTokens);
    expect(result.usage.reasoningTokens).toBeGreaterThan(0);
    expect(result.requestId).toBe(emu.requests[0]!.requestId);
    expect(emu.requests[0]!.body).toMatchObject({ stream: false });
  });

  it('streams the same answer as deltas ending with usage and finish', async () => {
    const stream = client.chatStream(ask('unicode'));
    const deltas = await collect(stream);
    expect(textOf(deltas)).toBe(unicodeReply);
    expect(textOf(deltas, 'reasoning')).toContain('unicode');
    expect(deltas.at(-2)!.type).toBe('usage');
    expect(deltas.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
    expect(stream.requestId).toBe(emu.requests[0]!.requestId);
    expect(emu.requests[0]!.body).toMatchObject({ stream: true });
    expect(emu.requests[0]!.headers.accept).toBe('text/event-stream');
  });

  it('survives every framing quirk the service may send', async () => {
    // Pieces cut inside lines and inside UTF-8 characters, each arriving on its own (1 ms apart).
    const quirks = [{ splitBytes: true }, { crlf: true, comments: true, splitBytes: [5, 11, 2, 23] }, { omitDone: true }];
    for (const stream of quirks) {
      emu.faults.push({ stream });
      const result = await client.chatStream(ask('unicode', { thinking: { type: 'disabled' } })).finalResult();
      expect(result.content, JSON.stringify(stream)).toBe(unicodeReply);
      expect(result.finishReason).toBe('stop');
    }
  });

  it('ends with a null finish reason when the service sent none', async () => {
    emu.faults.push({ stream: { omitFinish: true } });
    const deltas = await collect(client.chatStream(ask('hello')));
    expect(textOf(deltas)).toBe('Echo: hello');
    expect(deltas.at(-1)).toEqual({ type: 'finish', reason: null });
  });

  it('assembles streamed tool-call fragments into one tool_calls delta', async () => {
    const tools: ChatRequest['tools'] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
      { type: 'function', function: { name: 'get_time', description: 'Time', parameters: { type: 'object', properties: {} } } },
    ];
    const request = ask('call get_weather {"city":"Zürich 東京"} call get_time', { tools, tool_choice: 'auto' });
    const deltas = await collect(client.chatStream(request));
    const calls = deltas.filter((d) => d.type === 'tool_calls');
    expect(calls).toHaveLength(1);
    const [weather, time] = (calls[0] as { calls: { id: string; function: { name: string; arguments: string } }[] }).calls;
    expect(weather!.function).toEqual({ name: 'get_weather', arguments: '{"city":"Zürich 東京"}' });
    expect(weather!.id).toMatch(/^call_/);
    expect(time!.function).toEqual({ name: 'get_time', arguments: '{}' });
    expect(deltas.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls' });

    const whole = await client.chat(request);
    expect(whole.toolCalls.map((c) => c.function)).toEqual([weather!.function, time!.function]);
  });

  it('numbers web-search citations once per URL and renumbers the markers, streamed or not', async () => {
    const request = ask('latest news about comets', { tools: [{ type: 'web_search', force_search: true, limit: 3 }] });
    const whole = await client.chat(request);
    const streamed = await client.chatStream(request).finalResult();
    for (const result of [whole, streamed]) {
      expect(result.citations.map((c) => c.index)).toEqual([1, 2, 3]);
      expect(new Set(result.citations.map((c) => c.url)).size).toBe(3);
      expect(result.content).toContain('[3]. This is confirmed again in [1].');
      expect(result.content).not.toContain('[4]');
      expect(result.usage.webSearch).toEqual({ toolUsage: expect.any(Number), pageUsage: 3 });
    }
    expect(streamed.content).toBe(whole.content);
    expect(streamed.citations).toEqual(whole.citations);
  });
});

describe('messages endpoint', () => {
  const request = { model: 'svc-v2.5-pro', max_tokens: 200, system: 'Be brief.', messages: [{ role: 'user' as const, content: 'unicode' }] };

  it('maps the non-streamed message to a ChatResult', async () => {
    const result = await client.messages(request);
    expect(result).toMatchObject({ content: unicodeReply, finishReason: 'stop', model: 'svc-v2.5-pro' });
    expect(result.reasoning).toContain('unicode');
    expect(result.usage.promptTokens).toBeGreaterThan(0);
    expect(emu.requests[0]!.path).toBe('/anthropic/v1/messages');
  });

  it('maps the event stream to the same deltas, whatever the framing', async () => {
    emu.faults.push({ stream: { splitBytes: true, crlf: true, comments: true } });
    const deltas = await collect(client.messagesStream({ ...request, thinking: { type: 'disabled' } }));
    expect(textOf(deltas)).toBe(unicodeReply);
    expect(deltas.at(-2)).toMatchObject({ type: 'usage', usage: { completionTokens: expect.any(Number) } });
    expect(deltas.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
  });

  it('takes the api-key header too', async () => {
    const other = testClient(emu.url, emu.apiKey, { auth: 'api-key' });
    expect((await other.client.messagesStream(request).finalResult()).content).toBe(unicodeReply);
    await other.client.close();
    expect(emu.requests[0]!.headers['api-key']).toBe(emu.apiKey);
  });
});

describe('logging', () => {
  it('writes one line per request with id, model, status, attempts, durations and usage', async () => {
    await client.chatStream(ask('hello'), { capability: 'describe' }).finalResult();
    const records = logRecords(lines);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      msg: 'service request',
      capability: 'describe',
      model: 'svc-v2.5-pro',
      requestId: emu.requests[0]!.requestId,
      status: 200,
      attempts: 1,
      outcome: 'ok',
      usage: { prompt: expect.any(Number), completion: expect.any(Number), total: expect.any(Number) },
    });
    expect(records[0]!.ttfbMs).toBeTypeOf('number');
    expect(records[0]!.totalMs).toBeGreaterThanOrEqual(records[0]!.ttfbMs as number);
  });
});
