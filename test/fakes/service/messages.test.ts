import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from './emulator.ts';
import type { Emulator } from './emulator.ts';
import { imageBytes } from './media-fixtures.ts';
import { parseSse, post, readChunks } from './test-http.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu.close());

const path = '/anthropic/v1/messages';
const text = (t: string) => ({ type: 'text', text: t });
const request = (content: unknown[], extra: object = {}) => ({
  model: 'svc-v2.5-pro',
  max_tokens: 200,
  messages: [{ role: 'user', content }],
  ...extra,
});

async function send(body: unknown): Promise<{ status: number; body: any }> {
  const response = await post(emu, path, body);
  return { status: response.status, body: await response.json() };
}

describe('messages endpoint', () => {
  it('answers in the Anthropic message shape with a thinking block first', async () => {
    const { status, body } = await send(request([text('Hello')], { system: 'Be brief.', temperature: 0.2, top_p: 0.9, stop_sequences: null }));
    expect(status).toBe(200);
    expect(body).toEqual({
      id: expect.stringMatching(/^msg_/),
      type: 'message',
      role: 'assistant',
      model: 'svc-v2.5-pro',
      content: [
        { type: 'thinking', thinking: expect.stringContaining('Hello'), signature: expect.any(String) },
        { type: 'text', text: 'Echo: Hello' },
      ],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
    });
  });

  it('takes system as a string and keeps the conversation', async () => {
    const { body } = await send({
      model: 'svc-v2-flash',
      max_tokens: 100,
      system: 'You are Herald.',
      messages: [
        { role: 'user', content: [text('first words')] },
        { role: 'assistant', content: [text('ok')] },
        { role: 'user', content: [text('system?')] },
      ],
    });
    expect(body.content).toEqual([{ type: 'text', text: 'System prompt: You are Herald.' }]);
    const recall = await send({
      model: 'svc-v2-flash',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'first words' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'recall' },
      ],
    });
    expect(recall.body.content[0].text).toBe('You first said: first words');
  });

  it('stops at max_tokens and at stop sequences', async () => {
    const cut = await send(request([text('long 100')], { max_tokens: 4, thinking: { type: 'disabled' } }));
    expect(cut.body).toMatchObject({ stop_reason: 'max_tokens', usage: { output_tokens: 4 } });
    const stopped = await send(request([text('alpha beta gamma')], { stop_sequences: [' gamma'] }));
    expect(stopped.body).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: ' gamma' });
    expect(stopped.body.content.at(-1).text).toBe('Echo: alpha beta');
  });

  it('streams named events from message_start to message_stop', async () => {
    const response = await post(emu, path, request([text('stream me, 你好 🎉')], { stream: true }));
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = parseSse((await readChunks(response)).text).map((m) => ({ name: m.event, data: JSON.parse(m.data) }));
    for (const e of events) expect(e.data.type).toBe(e.name);
    const names = events.map((e) => e.name).filter((n) => n !== 'ping');
    expect(names.join(' ')).toMatch(
      /^message_start content_block_start( content_block_delta)+ content_block_stop content_block_start( content_block_delta)+ content_block_stop message_delta message_stop$/,
    );
    expect(events[1]!.name).toBe('ping');
    const deltas = events.filter((e) => e.name === 'content_block_delta').map((e) => e.data);
    expect(deltas.filter((d) => d.index === 0 && d.delta.type === 'thinking_delta').length).toBeGreaterThan(1);
    expect(deltas.some((d) => d.index === 0 && d.delta.type === 'signature_delta')).toBe(true);
    const streamed = deltas
      .filter((d) => d.index === 1)
      .map((d) => d.delta.text)
      .join('');
    expect(streamed).toBe('Echo: stream me, 你好 🎉');
    expect(events[0]!.data.message).toMatchObject({ role: 'assistant', content: [], stop_reason: null });
    expect(events.at(-2)!.data).toMatchObject({
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: expect.any(Number) },
    });
  });

  it('accepts image blocks with base64 and url sources on vision models', async () => {
    const webp = (await imageBytes('webp', 50, 20)).toString('base64');
    const { status, body } = await send({
      model: 'svc-v2.5',
      max_tokens: 200,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/webp', data: webp } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/a.jpg' } },
            text('what?'),
          ],
        },
      ],
    });
    expect(status).toBe(200);
    expect(body.content.at(-1).text).toBe(
      'Echo: what?\nI see 2 images.\nImage 1: image/webp 50x20\nImage 2: remote image https://example.com/a.jpg (not downloaded)',
    );
  });

  it('rejects images on non-vision models and data-URL prefixes, in Anthropic error style', async () => {
    const png = (await imageBytes('png', 8, 8)).toString('base64');
    const noVision = await send(request([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }]));
    expect(noVision).toEqual({
      status: 400,
      body: { type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('does not accept image input') } },
    });
    const prefixed = await send({
      ...request([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: `data:image/png;base64,${png}` } }]),
      model: 'svc-v2.5',
    });
    expect(prefixed.body.error.message).toMatch(/without a data: prefix/);
  });

  it('requires max_tokens and a known model', async () => {
    const { max_tokens: _omitted, ...noMax } = request([text('hi')]);
    expect((await send(noMax)).body.error).toEqual({ type: 'invalid_request_error', message: expect.stringContaining('max_tokens') });
    expect(await send({ ...request([text('hi')]), model: 'svc-v0' })).toEqual({
      status: 404,
      body: { type: 'error', error: { type: 'not_found_error', message: expect.stringContaining('svc-v0') } },
    });
  });

  it('serves the messages endpoint under the configured alt segment', async () => {
    const other = await startEmulator({ altPrefix: 'alt2' });
    try {
      expect(other.messagesUrl).toBe(`${other.url}/alt2/v1/messages`);
      expect((await post(other, '/alt2/v1/messages', request([text('hi')]))).status).toBe(200);
      expect((await post(other, '/anthropic/v1/messages', request([text('hi')]))).status).toBe(404);
    } finally {
      await other.close();
    }
  });
});
