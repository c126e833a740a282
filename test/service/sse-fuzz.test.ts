import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HeraldError } from '../../src/errors.ts';
import { ChatChunkReader } from '../../src/service/chat-chunk-reader.ts';
import { SseDecoder } from '../../src/service/sse-decoder.ts';
import type { ChatDelta } from '../../src/service/types.ts';

type Event = [string | undefined, string];

function decode(pieces: readonly Uint8Array[]): Event[] {
  const events: Event[] = [];
  const decoder = new SseDecoder((event, data) => events.push([event, data]));
  for (const piece of pieces) decoder.push(piece);
  decoder.end();
  return events;
}

/** `bytes` cut at the given offsets (in any order, repeats allowed). */
function cut(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const points = [...new Set([0, ...offsets.map((o) => o % (bytes.length + 1)), bytes.length])].sort((a, b) => a - b);
  return points.slice(1).map((end, i) => bytes.subarray(points[i], end));
}

/** A well-formed SSE body: events with optional names, multi-line data in any script, comments, any line ending. */
const sseBody = fc
  .tuple(
    fc.array(
      fc.record({
        event: fc.option(fc.constantFrom('message', 'error', 'ping', 'content_block_delta'), { nil: undefined }),
        lines: fc.array(
          fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => s.replace(/[\r\n]/g, ' ')),
          { minLength: 1, maxLength: 3 },
        ),
        comment: fc.boolean(),
      }),
      { maxLength: 8 },
    ),
    fc.constantFrom('\n', '\r\n', '\r'),
  )
  .map(([events, eol]) => ({
    text: events
      .map(
        (e) =>
          `${e.comment ? `: keep-alive${eol}` : ''}${e.event ? `event: ${e.event}${eol}` : ''}${e.lines.map((l) => `data: ${l}${eol}`).join('')}${eol}`,
      )
      .join(''),
    expected: events.map((e): Event => [e.event, e.lines.join('\n')]),
  }));

describe('SSE decoding of any bytes', () => {
  it('yields the same events however the network cuts the body, characters split included', () => {
    fc.assert(
      fc.property(sseBody, fc.array(fc.nat(), { maxLength: 12 }), ({ text, expected }, offsets) => {
        const bytes = new TextEncoder().encode(text);
        expect(decode(cut(bytes, offsets))).toEqual(expected.map(([event, data]) => [event ?? undefined, data]));
      }),
      { numRuns: 1500 },
    );
  });

  it('never throws on arbitrary bytes, in any pieces', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), fc.array(fc.nat(), { maxLength: 8 }), (bytes, offsets) => {
        for (const [, data] of decode(cut(bytes, offsets))) expect(typeof data).toBe('string');
      }),
      { numRuns: 1500 },
    );
  });

  it('reads a megabyte of one unterminated line in bounded time', () => {
    const started = performance.now();
    const line = new TextEncoder().encode(`data: ${'x'.repeat(1 << 20)}`);
    const events = decode(
      cut(
        line,
        Array.from({ length: 64 }, (_, i) => i * 16_384),
      ),
    );
    expect(events).toEqual([[undefined, 'x'.repeat(1 << 20)]]);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('chat chunks of any shape', () => {
  const json = fc.jsonValue({ maxDepth: 4 });
  const chunkLike = fc.oneof(
    fc.string({ maxLength: 60 }),
    json.map((v) => JSON.stringify(v)),
    fc
      .record(
        {
          model: json,
          usage: json,
          error: fc.option(json, { nil: undefined }),
          choices: fc.oneof(json, fc.array(fc.record({ delta: json, finish_reason: json }), { maxLength: 2 })),
        },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v)),
  );

  it('become deltas or a typed service error, never anything else', () => {
    fc.assert(
      fc.property(fc.array(chunkLike, { maxLength: 6 }), (chunks) => {
        const reader = new ChatChunkReader(['sk-secret-value']);
        const out: ChatDelta[] = [];
        try {
          for (const data of chunks) reader.read(data, out);
          reader.end(out);
        } catch (error) {
          expect(error).toBeInstanceOf(HeraldError);
          expect((error as Error).message).not.toContain('sk-secret-value');
          return;
        }
        expect(out.at(-1)?.type).toBe('finish');
      }),
      { numRuns: 2000 },
    );
  });
});
