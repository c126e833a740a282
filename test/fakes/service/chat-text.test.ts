import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, unicodeReply } from './emulator.ts';
import type { Emulator } from './emulator.ts';
import { dataUrl, imageBytes } from './media-fixtures.ts';
import { chatChunks, post, postChat, readChunks, streamedText } from './test-http.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu.close());

const ask = (content: string, extra: object = {}, model = 'svc-v2-flash') =>
  postChat(emu, { model, messages: [{ role: 'user', content }], ...extra });

describe('text chat', () => {
  it('echoes the last user message in an OpenAI-shaped completion', async () => {
    const body = await ask('Hello, world');
    expect(body).toMatchObject({ object: 'chat.completion', model: 'svc-v2-flash' });
    expect(body.id).toMatch(/^[0-9a-f]{32}$/);
    expect(Math.abs(body.created - Date.now() / 1000)).toBeLessThan(5);
    expect(body.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: 'Echo: Hello, world', tool_calls: null }, finish_reason: 'stop' },
    ]);
    const usage = body.usage;
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(usage.completion_tokens).toBeGreaterThan(2);
    expect(usage.completion_tokens_details.reasoning_tokens).toBe(0);
  });

  it('reports earlier context through the magic prompts', async () => {
    const messages = [
      { role: 'system', content: 'You are Herald.' },
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: 'Hi Ada.' },
    ];
    const reply = async (content: string) =>
      (await postChat(emu, { model: 'svc-v2-flash', messages: [...messages, { role: 'user', content }] })).choices[0].message.content;
    expect(await reply('what did I say first?')).toBe('You first said: My name is Ada.');
    expect(await reply('alice: recall')).toBe('You first said: My name is Ada.');
    expect(await reply('count turns')).toBe('Messages: 4 (system 1, user 2, assistant 1, tool 0)');
    expect(await reply('system?')).toBe('System prompt: You are Herald.');
    expect(await reply('history')).toBe('History:\nsystem: You are Herald.\nuser: My name is Ada.\nassistant: Hi Ada.');
  });

  it('answers with non-ASCII text and with long text on request', async () => {
    expect((await ask('unicode')).choices[0].message.content).toBe(unicodeReply);
    const long = (await ask('long 120')).choices[0].message.content as string;
    expect(long.split(/\s+/)).toHaveLength(120);
    expect(long).toContain('\n\n');
  });

  it('cuts the answer at max_completion_tokens and at a stop sequence', async () => {
    const cut = await ask('long 50', { max_completion_tokens: 5 });
    expect(cut.choices[0].finish_reason).toBe('length');
    expect(cut.usage.completion_tokens).toBe(5);
    const stopped = await ask('one two three four', { stop: [' three'] });
    expect(stopped.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'Echo: one two' } });
  });

  it('reports cached tokens when a request repeats an earlier prefix', async () => {
    const first = [
      { role: 'system', content: 'Cache me, a long and stable system prompt.' },
      { role: 'user', content: 'first question' },
    ];
    const a = await postChat(emu, { model: 'svc-v2-pro', messages: first });
    expect(a.usage.prompt_tokens_details.cached_tokens).toBe(0);
    const b = await postChat(emu, {
      model: 'svc-v2-pro',
      messages: [...first, { role: 'assistant', content: 'x' }, { role: 'user', content: 'second' }],
    });
    expect(b.usage.prompt_tokens_details.cached_tokens).toBe(a.usage.prompt_tokens);
    expect(b.usage.prompt_tokens).toBeGreaterThan(a.usage.prompt_tokens);
  });
});

describe('thinking', () => {
  it('is on by default for svc-v2.5-pro and off when disabled', async () => {
    const on = await ask('think', {}, 'svc-v2.5-pro');
    expect(on.choices[0].message.reasoning_content).toMatch(/think/);
    expect(on.usage.completion_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    const off = await ask('think', { thinking: { type: 'disabled' } }, 'svc-v2.5-pro');
    expect(off.choices[0].message).not.toHaveProperty('reasoning_content');
    expect(off.usage.completion_tokens_details.reasoning_tokens).toBe(0);
  });

  it('is off by default elsewhere and on when enabled', async () => {
    expect((await ask('x')).choices[0].message).not.toHaveProperty('reasoning_content');
    expect((await ask('x', { thinking: { type: 'enabled' } })).choices[0].message.reasoning_content).toBeTruthy();
  });
});

describe('streaming', () => {
  it('frames chunks as data events ending with [DONE], reasoning before content', async () => {
    const response = await post(emu, '/v1/chat/completions', {
      model: 'svc-v2.5-pro',
      stream: true,
      messages: [{ role: 'user', content: 'stream this please' }],
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const { text } = await readChunks(response);
    expect(text).toMatch(/^(data: [^\n]+\n\n)+$/);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    const events = text
      .trim()
      .split('\n\n')
      .map((e) => e.slice('data: '.length));
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const kinds = chunks.flatMap((c) => (c.choices[0]?.delta.reasoning_content ? ['r'] : c.choices[0]?.delta.content ? ['c'] : []));
    expect(kinds.join('')).toMatch(/^r{2,}c{2,}$/);
    expect(streamedText(chunks)).toBe('Echo: stream this please');
    const [finish, usage] = chunks.slice(-2);
    expect(finish.choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop' });
    expect(usage.choices).toEqual([]);
    expect(usage.usage.completion_tokens_details.reasoning_tokens).toBeGreaterThan(0);
  });

  it('streams the same text as the non-streaming answer', async () => {
    const plain = await ask('long 40');
    const { chunks, done } = await chatChunks(
      await post(emu, '/v1/chat/completions', { model: 'svc-v2-flash', stream: true, messages: [{ role: 'user', content: 'long 40' }] }),
    );
    expect(done).toBe(true);
    expect(streamedText(chunks)).toBe(plain.choices[0].message.content);
    const usage = chunks.at(-1)!.usage;
    expect([usage.prompt_tokens, usage.completion_tokens]).toEqual([plain.usage.prompt_tokens, plain.usage.completion_tokens]);
  });

  it('paces deltas at the configured token rate', async () => {
    emu.pace.tokensPerSecond = 200;
    try {
      const started = Date.now();
      const response = await post(emu, '/v1/chat/completions', {
        model: 'svc-v2-flash',
        stream: true,
        messages: [{ role: 'user', content: 'long 40' }],
      });
      const reader = response.body!.getReader();
      await reader.read();
      const firstByte = Date.now() - started;
      while (!(await reader.read()).done);
      const total = Date.now() - started;
      // long 40 is about 60 tokens: ~300 ms at 200 tokens/s.
      expect(total).toBeGreaterThan(250);
      expect(firstByte).toBeLessThan(total / 2);
    } finally {
      emu.pace.tokensPerSecond = 0;
    }
  });
});

describe('image understanding', () => {
  it('describes each image and counts image tokens by the spec formula', async () => {
    const png = await imageBytes('png', 640, 480);
    const jpeg = await imageBytes('jpeg', 10, 10);
    const body = await postChat(emu, {
      model: 'svc-v2.5',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'describe' },
            { type: 'image_url', image_url: { url: dataUrl('image/png', png) } },
            { type: 'image_url', image_url: { url: dataUrl('image/jpeg', jpeg) } },
          ],
        },
      ],
    });
    expect(body.choices[0].message.content).toBe('Echo: describe\nI see 2 images.\nImage 1: image/png 640x480\nImage 2: image/jpeg 10x10');
    expect(body.usage.prompt_tokens_details.image_tokens).toBe(300 + 9);
    expect(body.usage.prompt_tokens).toBeGreaterThan(309);
    expect(body.choices[0].message.reasoning_content).toBeUndefined();
  });

  it('downloads loopback image URLs and leaves public URLs alone', async () => {
    const gif = await imageBytes('gif', 64, 32);
    const host = createServer((_req, res) => res.end(gif));
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    const local = `http://127.0.0.1:${(host.address() as AddressInfo).port}/cat.gif`;
    try {
      const body = await postChat(emu, {
        model: 'svc-v2-omni',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image_url', image_url: { url: local } },
              { type: 'image_url', image_url: { url: 'https://example.com/dog.png' } },
            ],
          },
        ],
      });
      expect(body.choices[0].message.content).toContain('Image 1: image/gif 64x32');
      expect(body.choices[0].message.content).toContain('Image 2: remote image https://example.com/dog.png (not downloaded)');
      expect(body.usage.prompt_tokens_details.image_tokens).toBe(8 + 1024);
    } finally {
      host.close();
    }
  });
});
