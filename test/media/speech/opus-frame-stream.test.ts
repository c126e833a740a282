import { createAudioResource, StreamType } from '@discordjs/voice';
import OpusScript from 'opusscript';
import { describe, expect, it } from 'vitest';
import { upsample2x } from '../../../src/media/speech/half-band-upsampler.ts';
import { opusFrameReadable, opusFrameStream } from '../../../src/media/speech/opus-frame-stream.ts';
import { int16Bytes, seededRandom, speechLike, toInt16Array } from './signals.ts';

const SPEECH = toInt16Array(speechLike(2.013, 24000)); // 48,312 samples: ends mid-frame
const BYTES = int16Bytes(SPEECH);

async function* chunks(bytes: Uint8Array, seed: number): AsyncGenerator<Uint8Array> {
  const random = seededRandom(seed);
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + Math.floor(random() * 2999); // odd and even sizes alike
    yield bytes.subarray(at, at + size);
    at += size;
  }
}

async function collect(packets: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const packet of packets) out.push(packet);
  return out;
}

function decodeStereo(packets: Buffer[]): { left: Float32Array; right: Float32Array; perPacket: number[] } {
  const decoder = new OpusScript(48000, 2);
  try {
    const pcm = packets.map((p) => decoder.decode(p));
    const all = Buffer.concat(pcm);
    const left = new Float32Array(all.length / 4);
    const right = new Float32Array(all.length / 4);
    for (let i = 0; i < left.length; i++) {
      left[i] = all.readInt16LE(i * 4);
      right[i] = all.readInt16LE(i * 4 + 2);
    }
    return { left, right, perPacket: pcm.map((b) => b.length / 4) };
  } finally {
    decoder.delete();
  }
}

function correlation(a: ArrayLike<number>, b: ArrayLike<number>, length: number): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < length; i++) {
    ab += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return ab / Math.sqrt(aa * bb);
}

describe('opusFrameStream', () => {
  it('turns streamed 24 kHz pcm16 into 20 ms 48 kHz stereo packets covering the whole input', async () => {
    const packets = await collect(opusFrameStream(chunks(BYTES, 1)));
    const samples48 = SPEECH.length * 2;
    // The encoder's 312-sample lookahead must be played out too, hence the extra silence.
    expect(packets).toHaveLength(Math.ceil((samples48 + 312) / 960));
    const { left, right, perPacket } = decodeStereo(packets);
    expect(perPacket.every((n) => n === 960)).toBe(true);
    const seconds = left.length / 48000;
    expect(seconds).toBeGreaterThanOrEqual(SPEECH.length / 24000 + 312 / 48000);
    expect(seconds).toBeLessThan(SPEECH.length / 24000 + 312 / 48000 + 0.02);
    expect(correlation(left, right, left.length)).toBeGreaterThan(0.99); // mono content on both channels
    // In time with the input once the decoder's fixed delay is skipped.
    const reference = upsample2x(SPEECH);
    expect(correlation(reference, left.subarray(312), reference.length)).toBeGreaterThan(0.9);
  });

  it('produces identical packets however the bytes are chunked', async () => {
    const a = await collect(opusFrameStream(chunks(BYTES, 2)));
    const whole = (async function* () {
      yield BYTES;
    })();
    const b = await collect(opusFrameStream(whole));
    expect(b).toEqual(a);
  });

  it('emits the first packet while the input is still arriving', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let finished = false;
    async function* live(): AsyncGenerator<Uint8Array> {
      yield BYTES.subarray(0, 501); // 10 ms, odd length
      yield BYTES.subarray(501, 1101); // now 22.9 ms: one 20 ms frame plus the resampler's 1 ms lookahead
      await gate;
      yield BYTES.subarray(1101);
      finished = true;
    }
    const stream = opusFrameStream(live());
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 5000).unref());
    const first = await Promise.race([stream.next(), timeout]);
    expect(first).not.toBe('timeout');
    expect(finished).toBe(false);
    release();
    const rest = await collect(stream);
    expect(rest.length + 1).toBe(Math.ceil((SPEECH.length * 2 + 312) / 960));
  });

  it('reports a stream that stops halfway through a sample, and still ends cleanly', async () => {
    let truncated = 0;
    const source = (async function* () {
      yield BYTES.subarray(0, 4801);
    })();
    const packets = await collect(opusFrameStream(source, { onTruncatedSample: () => truncated++ }));
    expect(truncated).toBe(1);
    expect(packets).toHaveLength(Math.ceil((4800 + 312) / 960));
  });

  it('keeps encoding after other encoders grow the shared wasm heap', async () => {
    const stream = opusFrameStream(chunks(BYTES, 3), { backend: 'wasm' });
    const head = [(await stream.next()).value as Buffer];
    const crowd: OpusScript[] = [];
    // opusscript moves its heap once enough instances exist; earlier instances lose their views.
    for (let i = 0; i < 120; i++) crowd.push(new OpusScript(48000, 2, OpusScript.Application.AUDIO));
    try {
      const packets = [...head, ...(await collect(stream))];
      expect(packets).toHaveLength(Math.ceil((SPEECH.length * 2 + 312) / 960));
      const { left } = decodeStereo(packets);
      const reference = upsample2x(SPEECH);
      expect(correlation(reference, left.subarray(312), reference.length)).toBeGreaterThan(0.9);
    } finally {
      for (const instance of crowd) instance.delete();
    }
  });

  it('plays through @discordjs/voice as an Opus-typed audio resource', async () => {
    const readable = opusFrameReadable(chunks(BYTES, 4));
    const resource = createAudioResource(readable, { inputType: StreamType.Opus });
    const read: Buffer[] = [];
    for await (const packet of resource.playStream) read.push(packet as Buffer);
    expect(read).toHaveLength(Math.ceil((SPEECH.length * 2 + 312) / 960));
    expect(read.every((p) => Buffer.isBuffer(p) && p.length > 0 && p.length <= 1275)).toBe(true);
  });
});
