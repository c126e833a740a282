import { Agent, errors } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../src/service/client.ts';
import {
  AbortError,
  ConnectionError,
  RateLimitError,
  ResponseFormatError,
  ServerError,
  StreamInterruptedError,
  TimeoutError,
} from '../../src/service/errors.ts';
import type { ChatDelta, ChatRequest } from '../../src/service/types.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';
import { logRecords, testClient, textOf } from './harness.ts';
import { localServer, sseChunk } from './local-server.ts';

let emu: Emulator;
let client: ServiceClient;
let lines: string[];

beforeAll(async () => {
  emu = await startEmulator();
  ({ client, lines } = testClient(emu.url, emu.apiKey, { timeouts: { connectMs: 1000, firstByteMs: 400, idleMs: 300 } }));
});
afterAll(async () => {
  await client.close();
  await emu.close();
});
afterEach(() => {
  emu.reset();
  lines.length = 0;
});

const ask = (content = 'hello'): ChatRequest => ({ model: 'svc-v2.5-pro', messages: [{ role: 'user', content }], thinking: { type: 'disabled' } });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('should have failed'),
    (e: unknown) => e as Error,
  );

describe('retries before any byte of the answer', () => {
  it('waits as long as Retry-After says after a 429, then succeeds', async () => {
    emu.faults.push({ status: 429, retryAfter: 1 });
    const result = await client.chat(ask());
    expect(result.content).toBe('Echo: hello');
    expect(emu.requests).toHaveLength(2);
    expect(emu.requests[1]!.receivedAt - emu.requests[0]!.receivedAt).toBeGreaterThanOrEqual(950);
    const records = logRecords(lines);
    expect(records[0]).toMatchObject({ level: 20, status: 429, waitMs: 1000 });
    expect(records[1]).toMatchObject({ msg: 'service request', outcome: 'ok', attempts: 2 });
  });

  it('retries a streamed request after 5xx answers, with backoff', async () => {
    emu.faults.push({ status: 503, times: 1 }, { status: 502, times: 1 });
    const result = await client.chatStream(ask()).finalResult();
    expect(result.content).toBe('Echo: hello');
    expect(emu.requests.map((r) => r.status)).toEqual([503, 502, 200]);
  });

  it('gives up after maxRetries with a ServerError naming the status', async () => {
    emu.faults.push({ status: 500, times: 5 });
    const error = await failure(client.chat(ask()));
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ status: 500, code: 'server_error', requestId: emu.requests[2]!.requestId });
    expect(error.message).toBe('The AI service had an internal problem; try again shortly: Emulated failure with status 500 (HTTP 500).');
    expect(emu.requests).toHaveLength(3);
  });

  it('fails at once when Retry-After asks for more than a minute, saying when', async () => {
    emu.faults.push({ status: 429, retryAfter: 300 });
    const started = Date.now();
    const error = await failure(client.chat(ask()));
    expect(Date.now() - started).toBeLessThan(500);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ retryAfterMs: 300_000, status: 429 });
    expect(error.message).toMatch(/^The AI service is rate-limiting requests; try again in 5 minutes/);
    expect(emu.requests).toHaveLength(1);
  });

  it('explains an HTML error page from a proxy by its title and status', async () => {
    const html = '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>nginx</p></body></html>';
    emu.faults.push({ status: 502, body: html, times: 3 });
    const error = await failure(client.chat(ask()));
    expect(error.message).toBe('The AI service had an internal problem; try again shortly: 502 Bad Gateway (HTTP 502).');
  });

  it('stops waiting for a retry when the caller aborts', async () => {
    emu.faults.push({ status: 503, retryAfter: 30 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const error = await failure(client.chat(ask(), { signal: controller.signal }));
    expect(error).toBeInstanceOf(AbortError);
    expect(error.message).toBe('The request to the AI service was cancelled.');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(emu.requests).toHaveLength(1);
  });

  it('retries a connection reset before the first byte', async () => {
    let calls = 0;
    const server = await localServer((req, res) => {
      calls++;
      if (calls === 1) return req.socket.destroy();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`${sseChunk({ content: 'second try' }, 'stop')}data: [DONE]\n\n`);
    });
    const local = testClient(server.url, 'k-123456');
    const result = await local.client.chatStream(ask()).finalResult();
    await local.client.close();
    await server.close();
    expect(result.content).toBe('second try');
    expect(calls).toBe(2);
  });

  it('reports a service that cannot be reached as a ConnectionError after the retries', async () => {
    const server = await localServer(() => undefined);
    await server.close();
    const local = testClient(server.url, 'k-123456');
    const error = await failure(local.client.chat(ask()));
    await local.client.close();
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toBe('Could not reach the AI service (connection refused).');
    expect(logRecords(local.lines).at(-1)).toMatchObject({ outcome: 'connection_failed', attempts: 3 });
  });

  it('maps a connect timeout to TimeoutError(connect) and retries it', async () => {
    let connects = 0;
    const dispatcher = new Agent({
      connect: (_options, callback) => {
        connects++;
        callback(new errors.ConnectTimeoutError(), null);
      },
    });
    const local = testClient('http://127.0.0.1:9', 'k-123456', { dispatcher, maxRetries: 1 });
    const error = await failure(local.client.chat(ask()));
    await dispatcher.close();
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ phase: 'connect', message: 'Could not connect to the AI service within 2 s.' });
    expect(connects).toBe(2);
  });
});

describe('failures after the answer started', () => {
  it('reports a reset after partial output as StreamInterruptedError, without retrying', async () => {
    emu.faults.push({ stream: { resetAfter: 4 } });
    const seen: ChatDelta[] = [];
    const error = await failure(
      (async () => {
        for await (const delta of client.chatStream(ask('long 40'))) seen.push(delta);
      })(),
    );
    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect(error).toMatchObject({ partial: true, code: 'stream_interrupted' });
    expect(error.message).toMatch(/^The AI service's answer broke off partway through \(/);
    expect(textOf(seen)).toMatch(/^Alpha/);
    expect(seen.some((d) => d.type === 'finish')).toBe(false);
    expect(emu.requests).toHaveLength(1);
  });

  it('times out a stalled stream with TimeoutError(idle)', async () => {
    emu.faults.push({ stream: { stallAfter: 3 } });
    const started = Date.now();
    const error = await failure(client.chatStream(ask('long 40')).finalResult());
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ phase: 'idle', timeoutMs: 300, message: 'The AI service stopped sending its answer for 0.3 s.' });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(emu.requests).toHaveLength(1);
  });

  it('times out slow headers with TimeoutError(first_byte)', async () => {
    emu.faults.push({ delayMs: 2000 });
    const error = await failure(client.chat(ask()));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ phase: 'first_byte', message: 'The AI service did not start answering within 0.4 s.' });
  });

  it('times out a first body byte that never comes', async () => {
    const server = await localServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
    });
    const local = testClient(server.url, 'k-123456', { timeouts: { connectMs: 1000, firstByteMs: 300, idleMs: 5000 } });
    const error = await failure(local.client.chatStream(ask()).finalResult());
    await local.client.close();
    await server.close();
    expect(error).toMatchObject({ name: 'TimeoutError', phase: 'first_byte' });
  });

  it('rejects a malformed chunk with a clear message', async () => {
    emu.faults.push({ stream: { malformedAt: 2 } });
    const error = await failure(client.chatStream(ask()).finalResult());
    expect(error).toBeInstanceOf(ResponseFormatError);
    expect(error.message).toMatch(/^The AI service sent a malformed stream chunk \(".*"\)\.$/);
  });
});

describe('answers that are not what was asked for', () => {
  it('does not count a slow consumer as a silent service', async () => {
    emu.pace.tokensPerSecond = 100;
    try {
      let text = '';
      for await (const delta of client.chatStream(ask('long 12'))) {
        if (delta.type === 'content') text += delta.text;
        // Longer than the 300 ms idle limit, while the service keeps sending every few ms.
        if (delta.type === 'content' && text.length < 30) await new Promise((resolve) => setTimeout(resolve, 400));
      }
      expect(text).toMatch(/^Alpha bravo .* lima\.$/);
    } finally {
      emu.pace.tokensPerSecond = 0;
    }
  });

  it('explains a proxy page sent with status 200, streamed or not', async () => {
    const page = '<html><head><title>Captive portal</title></head><body>Log in first</body></html>';
    const server = await localServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page);
    });
    const local = testClient(server.url, 'k-123456');
    const streamed = await failure(local.client.chatStream(ask()).finalResult());
    const whole = await failure(local.client.chat(ask()));
    await local.client.close();
    await server.close();
    expect(streamed).toBeInstanceOf(ResponseFormatError);
    expect(streamed.message).toBe('The AI service answered with a web page instead of a stream ("Captive portal").');
    expect(whole.message).toBe('The AI service sent a response that is not valid JSON ("Captive portal").');
  });

  it('turns a whole JSON completion sent to a stream request into the same deltas', async () => {
    const completion = {
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: 'all at once' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 3, total_tokens: 4 },
    };
    const server = await localServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion));
    });
    const local = testClient(server.url, 'k-123456');
    const deltas: ChatDelta[] = [];
    for await (const delta of local.client.chatStream(ask())) deltas.push(delta);
    await local.client.close();
    await server.close();
    expect(deltas).toEqual([
      { type: 'content', text: 'all at once' },
      { type: 'usage', usage: expect.objectContaining({ totalTokens: 4 }) },
      { type: 'finish', reason: 'stop' },
    ]);
  });
});

describe('stopping a stream', () => {
  it('closes the HTTP connection when the consumer leaves the loop early', async () => {
    let closedAt = 0;
    let finished = false;
    const server = await localServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => res.write(sseChunk({ content: 'tick ' })), 10);
      res.on('close', () => {
        clearInterval(timer);
        closedAt = Date.now();
        finished = res.writableFinished;
      });
    });
    const local = testClient(server.url, 'k-123456');
    let count = 0;
    for await (const delta of local.client.chatStream(ask())) {
      if (delta.type === 'content' && ++count === 3) break;
    }
    const brokeAt = Date.now();
    await expect.poll(() => closedAt, { timeout: 1000 }).toBeGreaterThan(0);
    expect(closedAt - brokeAt).toBeLessThan(500);
    expect(finished).toBe(false);
    expect(logRecords(local.lines).at(-1)).toMatchObject({ outcome: 'stopped' });
    await local.client.close();
    await server.close();
  });

  it('ends iteration quietly on abort(), and throws AbortError when the caller signal fires', async () => {
    emu.pace.tokensPerSecond = 200;
    try {
      const stream = client.chatStream(ask('long 200'));
      const seen: ChatDelta[] = [];
      for await (const delta of stream) {
        seen.push(delta);
        if (seen.length === 2) stream.abort();
      }
      expect(seen.length).toBeLessThan(10);

      const controller = new AbortController();
      const error = await failure(
        (async () => {
          for await (const delta of client.chatStream(ask('long 200'), { signal: controller.signal })) {
            if (delta.type === 'content') controller.abort();
          }
        })(),
      );
      expect(error).toBeInstanceOf(AbortError);
    } finally {
      emu.pace.tokensPerSecond = 0;
    }
  });
});
