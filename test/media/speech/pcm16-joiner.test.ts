import { describe, expect, it } from 'vitest';
import { joinPcm16, Pcm16Joiner } from '../../../src/media/speech/pcm16-joiner.ts';
import { int16Bytes, seededRandom } from './signals.ts';

async function* chunked(bytes: Uint8Array, sizes: Iterable<number>): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (const size of sizes) {
    if (at >= bytes.length) break;
    yield bytes.subarray(at, at + size);
    at += size;
  }
  if (at < bytes.length) yield bytes.subarray(at);
}

async function collect(chunks: AsyncIterable<Int16Array>): Promise<number[]> {
  const out: number[] = [];
  for await (const c of chunks) out.push(...c);
  return out;
}

describe('pcm16 joiner', () => {
  const extremes = [-32768, -1, 0, 1, 32767, -257, 256];
  const samples = Int16Array.from({ length: 5001 }, (_, i) => extremes[i % 7]! + (i % 7 === 0 ? i : 0));
  const bytes = int16Bytes(samples);

  it('reproduces the exact sample sequence across odd, empty and single-byte chunks', async () => {
    const random = seededRandom(1);
    const sizes = Array.from({ length: 4000 }, () => [0, 1, 3, Math.floor(random() * 37)][Math.floor(random() * 4)]!);
    expect(await collect(joinPcm16(chunked(bytes, sizes)))).toEqual([...samples]);
  });

  it('joins a sample whose low byte ends one chunk and high byte starts the next, keeping the sign', () => {
    const joiner = new Pcm16Joiner();
    expect([...joiner.push(Uint8Array.of(0x34, 0x12, 0x01))]).toEqual([0x1234]);
    expect(joiner.hasPartialSample).toBe(true);
    expect([...joiner.push(Uint8Array.of(0x80))]).toEqual([-32767]);
    expect([...joiner.push(Uint8Array.of(0xff))]).toEqual([]);
    expect([...joiner.push(Uint8Array.of())]).toEqual([]);
    expect([...joiner.push(Uint8Array.of(0xff, 0x00, 0x80))]).toEqual([-1, -32768]);
    expect(joiner.hasPartialSample).toBe(false);
  });

  it('drops a dangling last byte and reports it once', async () => {
    let reports = 0;
    const chunks = chunked(bytes.subarray(0, 7), [3, 3, 1]);
    const out = await collect(joinPcm16(chunks, { onTruncatedSample: () => reports++ }));
    expect(out).toEqual([...samples.subarray(0, 3)]);
    expect(reports).toBe(1);
  });

  it('does not report a stream that ends on a whole sample', async () => {
    let reports = 0;
    await collect(joinPcm16(chunked(bytes, [5, 5]), { onTruncatedSample: () => reports++ }));
    expect(reports).toBe(0);
  });
});
