import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, unicodeReply } from './emulator.ts';
import type { Emulator } from './emulator.ts';
import { jsonOf, parseSse, post, readChunks, streamedText } from './test-http.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterEach(() => emu.reset());
afterAll(() => emu.close());

const chat = (content = 'hello', stream = false) => ({ model: 'svc-v2-flash', stream, messages: [{ role: 'user', content }] });
const streamChat = (content = 'hello') => post(emu, '/v1/chat/completions', chat(content, true));
const dataOf = (text: string) => parseSse(text).map((m) => m.data);
const chunksOf = (text: string) =>
  dataOf(text)
    .filter((d) => d !== '[DONE]')
    .map((d) => JSON.parse(d));

describe('status faults', () => {
  it('answers 429 with Retry-After once, then normally', async () => {
    emu.faults.push({ status: 429, retryAfter: 2 });
    const limited = await post(emu, '/v1/chat/completions', chat());
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(limited.headers.get('x-request-id')).toBeTruthy();
    expect((await jsonOf(limited)).error).toMatchObject({ type: 'rate_limit_error' });
    expect((await post(emu, '/v1/chat/completions', chat())).status).toBe(200);
    expect(emu.requests.map((r) => r.status)).toEqual([429, 200]);
  });

  it.each([500, 502, 503, 408])('answers %i for as many requests as asked', async (status) => {
    emu.faults.push({ status, times: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await post(emu, '/v1/chat/completions', chat())).status);
    expect(statuses).toEqual([status, status, 200]);
  });

  it('targets an endpoint and answers in its error style', async () => {
    emu.faults.push({ endpoint: 'messages', status: 429, retryAfter: 1 });
    expect((await post(emu, '/v1/chat/completions', chat())).status).toBe(200);
    const response = await post(emu, '/anthropic/v1/messages', {
      model: 'svc-v2-flash',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.status).toBe(429);
    expect(await jsonOf(response)).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: expect.any(String) } });
  });

  it('targets a model', async () => {
    emu.faults.push({ model: 'svc-v2-pro', status: 503 });
    expect((await post(emu, '/v1/chat/completions', chat())).status).toBe(200);
    expect((await post(emu, '/v1/chat/completions', { ...chat(), model: 'svc-v2-pro' })).status).toBe(503);
  });

  it('can answer with a proxy HTML page', async () => {
    emu.faults.push({ status: 502, body: '<html><body>Bad Gateway</body></html>' });
    const response = await post(emu, '/v1/chat/completions', chat());
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toBe('text/html');
    expect(await response.text()).toContain('Bad Gateway');
  });

  it('delays the first byte', async () => {
    emu.faults.push({ delayMs: 300 });
    const started = Date.now();
    const response = await post(emu, '/v1/chat/completions', chat());
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(response.status).toBe(200);
  });
});

describe('stream faults', () => {
  it('leave non-streaming requests alone', async () => {
    emu.faults.push({ stream: { omitDone: true } });
    expect((await post(emu, '/v1/chat/completions', chat())).status).toBe(200);
    expect(emu.faults).toHaveLength(1);
  });

  it('stall the stream for a while after K events', async () => {
    emu.faults.push({ stream: { stallAfter: 2, stallMs: 300 } });
    const response = await streamChat('long 20');
    const arrivals: number[] = [];
    let text = '';
    const decoder = new TextDecoder();
    for await (const chunk of response.body!) {
      text += decoder.decode(chunk, { stream: true });
      arrivals.push(Date.now());
    }
    const gaps = arrivals.slice(1).map((t, i) => t - arrivals[i]!);
    // Measured where the chunks are read: a chunk read late shortens the gap after it.
    expect(Math.max(...gaps)).toBeGreaterThanOrEqual(250);
    expect(dataOf(text).at(-1)).toBe('[DONE]');
  });

  it('stall forever until the client gives up, and the emulator keeps serving', async () => {
    emu.faults.push({ stream: { stallAfter: 2 } });
    const aborter = new AbortController();
    const response = await fetch(`${emu.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'api-key': emu.apiKey },
      body: JSON.stringify(chat('long 20', true)),
      signal: aborter.signal,
    });
    const reader = response.body!.getReader();
    let text = '';
    const decoder = new TextDecoder();
    const timer = setTimeout(() => aborter.abort(), 400);
    await expect(
      (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          text += decoder.decode(value, { stream: true });
        }
      })(),
    ).rejects.toThrow();
    clearTimeout(timer);
    expect(dataOf(text)).toHaveLength(2);
    expect((await post(emu, '/v1/chat/completions', chat())).status).toBe(200);
  });

  it('reset the connection after K events', async () => {
    emu.faults.push({ stream: { resetAfter: 3 } });
    const response = await streamChat('long 30');
    const reader = response.body!.getReader();
    let text = '';
    const decoder = new TextDecoder();
    const failure = await (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return null;
        text += decoder.decode(value, { stream: true });
      }
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(dataOf(text)).toHaveLength(3);
  });

  it('insert a data line of invalid JSON', async () => {
    emu.faults.push({ stream: { malformedAt: 2 } });
    const data = dataOf((await readChunks(await streamChat('hello world'))).text);
    const broken = data.filter((d) => {
      try {
        JSON.parse(d);
        return false;
      } catch {
        return d !== '[DONE]';
      }
    });
    expect(broken).toHaveLength(1);
    expect(data.indexOf(broken[0]!)).toBe(2);
    const good = data.filter((d) => d !== broken[0] && d !== '[DONE]').map((d) => JSON.parse(d));
    expect(streamedText(good)).toBe('Echo: hello world');
  });

  it('use CRLF line endings and comment lines', async () => {
    emu.faults.push({ stream: { crlf: true, comments: true } });
    const { text } = await readChunks(await streamChat('hello world'));
    expect(text).toContain('\r\n\r\n');
    expect(text.replaceAll('\r\n', '')).not.toContain('\n');
    expect(text.split('\r\n').filter((line) => line.startsWith(':')).length).toBeGreaterThan(3);
    expect(streamedText(chunksOf(text))).toBe('Echo: hello world');
  });

  it('split the byte stream inside multi-byte UTF-8 characters', async () => {
    emu.faults.push({ stream: { splitBytes: [5, 17, 3, 29, 11] } });
    const { chunks, text } = await readChunks(await streamChat('unicode'));
    const strictDecode = (bytes: Uint8Array) => {
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(bytes);
        return true;
      } catch {
        return false;
      }
    };
    expect(chunks.length).toBeGreaterThan(dataOf(text).length * 2);
    expect(chunks.some((c) => !strictDecode(c))).toBe(true);
    expect(streamedText(chunksOf(text))).toBe(unicodeReply);
  });

  it('omit [DONE], or the finish_reason chunk', async () => {
    emu.faults.push({ stream: { omitDone: true } }, { stream: { omitFinish: true } });
    const noDone = dataOf((await readChunks(await streamChat())).text);
    expect(noDone).not.toContain('[DONE]');
    expect(noDone.some((d) => d.includes('"finish_reason":"stop"'))).toBe(true);
    const noFinish = dataOf((await readChunks(await streamChat())).text);
    expect(noFinish.at(-1)).toBe('[DONE]');
    expect(noFinish.some((d) => d.includes('"finish_reason":"stop"'))).toBe(false);
  });

  it('omit message_delta and message_stop on the messages endpoint', async () => {
    emu.faults.push({ stream: { omitFinish: true } });
    const response = await post(emu, '/anthropic/v1/messages', {
      model: 'svc-v2-flash',
      max_tokens: 50,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const names = parseSse((await readChunks(response)).text).map((m) => m.event);
    expect(names.at(-1)).toBe('content_block_stop');
  });
});

describe('closing', () => {
  it('ends stalled streams when the emulator closes', async () => {
    const own = await startEmulator();
    own.faults.push({ stream: { stallAfter: 1 } });
    const response = await post(own, '/v1/chat/completions', chat('hello', true));
    const reading = readChunks(response).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await own.close();
    const result = await reading;
    expect(result instanceof Error || dataOf((result as { text: string }).text).length === 1).toBe(true);
  });
});

describe('what a request record tells about its stream', () => {
  const closedRecord = async (index: number) => {
    for (let tries = 0; tries < 200 && !emu.requests[index]?.closed; tries++) await new Promise((r) => setTimeout(r, 10));
    return emu.requests[index]!;
  };

  it('a stream written to its end: every event sent, closed by the emulator', async () => {
    await readChunks(await streamChat('long 20'));
    const record = await closedRecord(0);
    expect(record.streamed!.sent).toBe(record.streamed!.total);
    expect(record.closed).toMatchObject({ byClient: false });
  });

  it('a stream the client cancels: stopped short, closed by the client', async () => {
    emu.pace.tokensPerSecond = 100;
    try {
      const aborter = new AbortController();
      const response = await fetch(emu.chatCompletionsUrl, {
        method: 'POST',
        headers: { 'api-key': emu.apiKey },
        body: JSON.stringify(chat('long 100', true)),
        signal: aborter.signal,
      });
      await response.body!.getReader().read();
      aborter.abort();
      const record = await closedRecord(0);
      expect(record.closed).toMatchObject({ byClient: true });
      expect(record.streamed!.sent).toBeGreaterThan(0);
      expect(record.streamed!.sent).toBeLessThan(record.streamed!.total / 2);
    } finally {
      emu.pace.tokensPerSecond = 0;
    }
  });

  it('a connection the emulator resets as a fault is not a cancellation', async () => {
    emu.faults.push({ stream: { resetAfter: 3 } });
    await readChunks(await streamChat('long 30')).catch(() => {});
    const record = await closedRecord(0);
    expect(record.closed).toMatchObject({ byClient: false });
    expect(record.streamed!.sent).toBe(3);
  });
});
