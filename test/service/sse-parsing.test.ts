import { describe, expect, it } from 'vitest';
import { ChatChunkReader } from '../../src/service/chat-chunk-reader.ts';
import { ResponseFormatError, ServerError } from '../../src/service/errors.ts';
import { MessagesEventReader } from '../../src/service/messages-event-reader.ts';
import { MAX_EVENT_CHARS, SseDecoder } from '../../src/service/sse-decoder.ts';
import type { ChatDelta } from '../../src/service/types.ts';

const base = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'svc-v2.5-pro' };
const chunk = (delta: object, finish: string | null = null) => JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
const site = (n: number) => ({
  type: 'url_citation',
  url: `https://s${n}.example.com/`,
  title: `T${n}`,
  summary: 's',
  site_name: `S${n}`,
  publish_time: '2025-01-01T00:00:00+00:00',
  logo_url: '',
});
const usage = {
  prompt_tokens: 10,
  completion_tokens: 20,
  total_tokens: 30,
  completion_tokens_details: { reasoning_tokens: 5 },
  web_search_usage: { tool_usage: 2, page_usage: 3 },
};

/** A chat stream touching every case: comments, annotations with a duplicate, CJK and emoji, tool-call fragments, a choices-less usage chunk. */
function recordedChat(eol: string, options: { done?: boolean; finish?: boolean } = {}): string {
  const events = [
    chunk({ role: 'assistant', content: '', annotations: [site(1), site(2), site(1)] }),
    chunk({ reasoning_content: '想一想 🤔' }),
    chunk({ content: '你好，世界！🌍 See [1]' }),
    chunk({ content: ' and [' }),
    chunk({ content: '3]. 👩‍💻 Ünïcödé' }),
    chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_time', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"zone":' } }] }),
    chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"東京"}' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '"UTC"}' } }] }),
    JSON.stringify({ ...base, usage }),
    ...(options.finish === false ? [] : [chunk({}, 'tool_calls')]),
    JSON.stringify({ ...base, choices: [], usage }),
    ...(options.done === false ? [] : ['[DONE]']),
  ];
  return `: keep-alive${eol}${eol}${events.map((data, i) => `${i % 3 === 0 ? `: ping${eol}` : ''}data: ${data}${eol}${eol}`).join('')}`;
}

function parseChat(pieces: Uint8Array[]): ChatDelta[] {
  const out: ChatDelta[] = [];
  const reader = new ChatChunkReader(['secret']);
  const decoder = new SseDecoder((_event, data) => reader.read(data, out));
  for (const piece of pieces) {
    decoder.push(piece);
    if (reader.done) break;
  }
  if (!reader.done) decoder.end();
  reader.end(out);
  return out;
}

function splitAt(bytes: Buffer, ...cuts: number[]): Buffer[] {
  const points = [0, ...cuts, bytes.length];
  return points.slice(1).map((end, i) => bytes.subarray(points[i], end));
}

/** Comparing serialized deltas keeps the thousands of comparisons below fast. */
const key = (deltas: ChatDelta[]) => JSON.stringify(deltas);

const text = (deltas: ChatDelta[], type: 'content' | 'reasoning' = 'content') => deltas.map((d) => (d.type === type ? d.text : '')).join('');

describe('chat-completions stream parsing', () => {
  const lf = Buffer.from(recordedChat('\n'));
  const reference = parseChat([lf]);

  it('yields renumbered text, deduplicated citations, assembled tool calls, usage, then finish', () => {
    expect(reference[0]).toEqual({
      type: 'citations',
      remap: [1, 2, 1],
      citations: [
        expect.objectContaining({ index: 1, url: 'https://s1.example.com/', title: 'T1' }),
        expect.objectContaining({ index: 2, url: 'https://s2.example.com/', title: 'T2' }),
      ],
    });
    expect(text(reference, 'reasoning')).toBe('想一想 🤔');
    expect(text(reference)).toBe('你好，世界！🌍 See [1] and [1]. 👩‍💻 Ünïcödé');
    expect(reference.filter((d) => d.type === 'tool_calls')).toEqual([
      {
        type: 'tool_calls',
        calls: [
          { id: 'call_a', type: 'function', function: { name: 'get_time', arguments: '{"zone":"UTC"}' } },
          { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"東京"}' } },
        ],
      },
    ]);
    expect(reference.at(-2)).toMatchObject({
      type: 'usage',
      usage: { promptTokens: 10, reasoningTokens: 5, webSearch: { toolUsage: 2, pageUsage: 3 } },
    });
    expect(reference.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls' });
  });

  it('gives the same deltas for a split at every byte offset, inside lines and inside UTF-8 characters', () => {
    const expected = key(reference);
    for (let cut = 1; cut < lf.length; cut++) {
      const got = key(parseChat(splitAt(lf, cut)));
      if (got !== expected) expect(got, `cut at byte ${cut}`).toBe(expected);
    }
  });

  it('gives the same deltas when every byte arrives alone, with CRLF, and with bare CR line ends', () => {
    expect(parseChat([...lf].map((b) => Uint8Array.of(b)))).toEqual(reference);
    const crlf = Buffer.from(recordedChat('\r\n'));
    const expected = key(reference);
    for (let cut = 1; cut < crlf.length - 3; cut++) {
      const got = key(parseChat(splitAt(crlf, cut, cut + 3)));
      if (got !== expected) expect(got, `cuts at bytes ${cut} and ${cut + 3}`).toBe(expected);
    }
    expect(parseChat([Buffer.from(recordedChat('\r'))])).toEqual(reference);
  });

  it('ends cleanly without [DONE], and with a null finish reason when none came', () => {
    expect(parseChat([Buffer.from(recordedChat('\n', { done: false }))])).toEqual(reference);
    const unfinished = parseChat([Buffer.from(recordedChat('\n', { done: false, finish: false }))]);
    expect(unfinished.at(-1)).toEqual({ type: 'finish', reason: null });
    expect(unfinished.find((d) => d.type === 'tool_calls')).toBeDefined();
  });

  it('accepts a last event the server did not close with a blank line', () => {
    const deltas = parseChat([Buffer.from(`data: ${chunk({ content: 'hi' }, 'stop')}`)]);
    expect(deltas).toEqual([
      { type: 'content', text: 'hi' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('turns audio deltas into bytes and skips chunks without choices', () => {
    const pcm = Buffer.from([1, 2, 3, 4, 5]);
    const stream = [
      `data: ${chunk({ audio: { data: pcm.subarray(0, 3).toString('base64') } })}`,
      `data: ${JSON.stringify({ ...base })}`,
      `data: ${chunk({ audio: { data: pcm.subarray(3).toString('base64') } })}`,
      'data: [DONE]',
    ].join('\n\n');
    const deltas = parseChat([Buffer.from(`${stream}\n\n`)]);
    expect(deltas).toEqual([
      { type: 'audio', data: Buffer.from([1, 2, 3]) },
      { type: 'audio', data: Buffer.from([4, 5]) },
      { type: 'finish', reason: null },
    ]);
  });

  it('rejects a malformed chunk with a clear error, and reports an error sent inside the stream', () => {
    expect(() => parseChat([Buffer.from('data: {"choices":[{"delta":{"content":"oo\n\n')])).toThrow(ResponseFormatError);
    expect(() => parseChat([Buffer.from('data: {"choices":[\n\n')])).toThrow(/malformed stream chunk/);
    const inStream = () => parseChat([Buffer.from('data: {"error":{"message":"Model overloaded","type":"server_error"}}\n\n')]);
    expect(inStream).toThrow(ServerError);
    expect(inStream).toThrow('The AI service failed while answering: Model overloaded.');
  });

  it('refuses an event that never ends instead of holding it in memory, and lets a large real one through', () => {
    const endless = Buffer.alloc(64 * 1024, 'x');
    const decoder = new SseDecoder(() => {});
    decoder.push(Buffer.from('data: '));
    let fed = 0;
    const feed = () => {
      while (fed <= MAX_EVENT_CHARS) {
        decoder.push(endless);
        fed += endless.length;
      }
    };
    expect(feed).toThrow(ResponseFormatError);
    expect(fed).toBeLessThanOrEqual(MAX_EVENT_CHARS + endless.length);
    const large = 'y'.repeat(MAX_EVENT_CHARS / 2);
    const events = parseChat([Buffer.from(`data: ${chunk({ content: large })}\n\n`), Buffer.from(`data: ${chunk({ content: large })}\n\n`)]);
    expect(events.filter((d) => d.type === 'content')).toHaveLength(2);
  });
});

function recordedMessages(): string {
  const e = (type: string, payload: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`;
  return [
    e('message_start', { message: { id: 'm', model: 'svc-v2.5-pro', usage: { input_tokens: 12, output_tokens: 1, cache_read_input_tokens: 4 } } }),
    e('ping', {}),
    e('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } }),
    e('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: '考虑 ' } }),
    e('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'sig' } }),
    e('content_block_stop', { index: 0 }),
    e('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
    e('content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'Hello 🌍' } }),
    e('content_block_delta', { index: 1, delta: { type: 'text_delta', text: ' 世界' } }),
    e('content_block_stop', { index: 1 }),
    e('content_block_start', { index: 2, content_block: { type: 'tool_use', id: 'tu_1', name: 'lookup', input: {} } }),
    e('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '{"q":' } }),
    e('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '"x"}' } }),
    e('content_block_stop', { index: 2 }),
    e('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } }),
    e('message_stop', {}),
  ].join('');
}

function parseMessages(pieces: Uint8Array[]): ChatDelta[] {
  const out: ChatDelta[] = [];
  const reader = new MessagesEventReader([]);
  const decoder = new SseDecoder((event, data) => reader.read(event, data, out));
  for (const piece of pieces) decoder.push(piece);
  if (!reader.done) decoder.end();
  reader.end(out);
  return out;
}

describe('Messages-format stream parsing', () => {
  const bytes = Buffer.from(recordedMessages());
  const reference = parseMessages([bytes]);

  it('maps thinking, text and tool_use blocks, usage and stop_reason to the chat deltas', () => {
    expect(reference).toEqual([
      { type: 'reasoning', text: '考虑 ' },
      { type: 'content', text: 'Hello 🌍' },
      { type: 'content', text: ' 世界' },
      { type: 'tool_calls', calls: [{ id: 'tu_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] },
      {
        type: 'usage',
        usage: expect.objectContaining({ promptTokens: 16, cachedTokens: 4, completionTokens: 9, totalTokens: 25 }),
      },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('gives the same deltas for a split at every byte offset', () => {
    const expected = key(reference);
    for (let cut = 1; cut < bytes.length; cut++) {
      const got = key(parseMessages(splitAt(bytes, cut)));
      if (got !== expected) expect(got, `cut at byte ${cut}`).toBe(expected);
    }
  });

  it('raises the error event as a ServiceError of its kind', () => {
    const error = `event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`;
    expect(() => parseMessages([Buffer.from(error)])).toThrow(ServerError);
  });
});
