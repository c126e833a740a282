import OpusScript from 'opusscript';
import { describe, expect, it } from 'vitest';
import { HeardOpusDecoder } from '../../adapters/discord/voice/heard-opus-decoder.ts';
import { FRAME_SAMPLES_48K } from '../../src/media/speech/opus-encoder.ts';
import { ClientOpusEncoder } from '../fakes/discord-voice/client-opus.ts';
import { talkFixture } from '../fakes/discord-voice/talk-fixtures.ts';

/** Decodes packets, resolving once `expected` frames have come out (the wasm decoder starts asynchronously). */
function decodeAll(options: ConstructorParameters<typeof HeardOpusDecoder>[1], packets: Buffer[], expected: number): Promise<Int16Array[]> {
  return new Promise((resolve) => {
    const frames: Int16Array[] = [];
    const decoder = new HeardOpusDecoder((frame) => {
      frames.push(frame);
      if (frames.length === expected) resolve(frames);
    }, options);
    for (const packet of packets) decoder.decode(packet);
  });
}

const speech = talkFixture('time-in-tokyo-b');
const encoder = new ClientOpusEncoder();
const packets: Buffer[] = [];
for (let at = 0; at < speech.length; at += FRAME_SAMPLES_48K) packets.push(encoder.encode(speech.subarray(at, at + FRAME_SAMPLES_48K)));
encoder.delete();

describe('decoding what a speaker sends', () => {
  it('gives the same 20 ms mono frames with native libopus and with the WebAssembly build', async () => {
    const native = await decodeAll({ backend: 'native' }, packets, packets.length);
    const wasm = await decodeAll({ backend: 'wasm', maxPending: packets.length }, packets, packets.length);
    expect(native.every((frame) => frame.length === FRAME_SAMPLES_48K)).toBe(true);
    let largest = 0;
    native.forEach((frame, f) => frame.forEach((sample, i) => (largest = Math.max(largest, Math.abs(sample - wasm[f]![i]!)))));
    expect(largest).toBeLessThanOrEqual(2);
    const energy = native.reduce((sum, frame) => sum + frame.reduce((s, x) => s + x * x, 0), 0);
    expect(Math.sqrt(energy / (native.length * FRAME_SAMPLES_48K))).toBeGreaterThan(500); // speech, not silence
  });

  it('keeps at most the latest packets that come while the WebAssembly decoder starts', async () => {
    const frames = await decodeAll({ backend: 'wasm', maxPending: 20 }, packets, 20);
    // The held packets are decoded in one go once the decoder is ready: by now all of them are out.
    expect(frames).toHaveLength(20);
  });

  it('cuts longer packets into 20 ms frames and skips a packet libopus rejects', async () => {
    const long = new OpusScript(48_000, 1, OpusScript.Application.VOIP);
    const sixty = Buffer.from(long.encode(Buffer.from(speech.buffer, speech.byteOffset, 2880 * 2), 2880));
    long.delete();
    const frames: Int16Array[] = [];
    const decoder = new HeardOpusDecoder((frame) => frames.push(frame));
    decoder.decode(sixty);
    expect(frames.map((frame) => frame.length)).toEqual([960, 960, 960]);
    // TOC code 3 announcing 48 frames of 60 ms: more than any packet may hold.
    expect(() => decoder.decode(Buffer.from([0x1b, 0x30, 0x00]))).toThrow();
    decoder.decode(packets[10]!);
    expect(frames).toHaveLength(4);
    decoder.free();
  });
});
