import { describe, expect, it } from 'vitest';
import { MediaError } from '../../../src/errors.ts';
import { readWav, wavDurationSeconds, writeWav } from '../../../src/media/wav.ts';
import { fixture } from './audio-fixtures.ts';

const sine = (i: number, rate: number, hz: number, amplitude: number) => amplitude * Math.sin((2 * Math.PI * hz * i) / rate);

function maxError(samples: Float32Array, expected: (i: number) => number): number {
  let worst = 0;
  for (let i = 0; i < samples.length; i++) worst = Math.max(worst, Math.abs(samples[i]! - expected(i)));
  return worst;
}

function chunk(id: string, body: Uint8Array, options: { size?: number; pad?: boolean } = {}): Buffer {
  const header = Buffer.alloc(8);
  header.write(id, 0, 'latin1');
  header.writeUInt32LE(options.size ?? body.length, 4);
  const pad = body.length % 2 === 1 && options.pad !== false ? Buffer.alloc(1) : Buffer.alloc(0);
  return Buffer.concat([header, body, pad]);
}

function fmt16(channels: number, rate: number, bits = 16, formatTag = 1): Buffer {
  const body = Buffer.alloc(16);
  const block = (channels * bits) / 8;
  body.writeUInt16LE(formatTag, 0);
  body.writeUInt16LE(channels, 2);
  body.writeUInt32LE(rate, 4);
  body.writeUInt32LE(rate * block, 8);
  body.writeUInt16LE(block, 12);
  body.writeUInt16LE(bits, 14);
  return chunk('fmt ', body);
}

function riff(chunks: Buffer[], kind = 'RIFF', size?: number): Buffer {
  const body = Buffer.concat([Buffer.from('WAVE'), ...chunks]);
  const header = Buffer.alloc(8);
  header.write(kind, 0, 'latin1');
  header.writeUInt32LE(size ?? body.length, 4);
  return Buffer.concat([header, body]);
}

const pcm16 = (values: number[]) => Buffer.from(new Int16Array(values).buffer);

function wavError(bytes: Uint8Array): MediaError {
  try {
    readWav(bytes);
  } catch (error) {
    expect(error).toBeInstanceOf(MediaError);
    return error as MediaError;
  }
  throw new Error('expected readWav to throw');
}

describe('readWav', () => {
  it.each([
    ['tone-u8.wav', 1 / 128],
    ['tone-s16le.wav', 1 / 32768],
    ['tone-s24le.wav', 1e-6],
    ['tone-s32le.wav', 1e-6],
    ['tone-f32le.wav', 1e-6],
    ['tone-f64le.wav', 1e-6],
  ])('decodes %s (0.5 s of 440 Hz at half scale, 8 kHz) to the right samples', (name, tolerance) => {
    const bytes = fixture(name);
    const audio = readWav(bytes);
    expect(audio.sampleRate).toBe(8000);
    expect(audio.channels).toHaveLength(1);
    expect(audio.channels[0]).toHaveLength(4000);
    expect(wavDurationSeconds(bytes)).toBe(0.5);
    expect(maxError(audio.channels[0]!, (i) => sine(i, 8000, 440, 0.5))).toBeLessThanOrEqual(tolerance);
  });

  it('reads a plain IEEE-float header with a fact chunk (as sox and Audacity write)', () => {
    const audio = readWav(fixture('tone-f32-plain.wav'));
    expect(audio.sampleRate).toBe(8000);
    expect(audio.channels[0]).toHaveLength(4000);
    let peak = 0;
    for (const v of audio.channels[0]!) peak = Math.max(peak, Math.abs(v));
    expect(peak).toBeCloseTo(0.5, 2);
  });

  it('keeps stereo channels apart at 44.1 kHz', () => {
    const audio = readWav(fixture('stereo-44k.wav'));
    expect(audio.sampleRate).toBe(44100);
    expect(audio.channels).toHaveLength(2);
    expect(audio.channels[0]).toHaveLength(39690);
    expect(maxError(audio.channels[0]!, (i) => sine(i, 44100, 440, 0.5))).toBeLessThan(1e-4);
    expect(maxError(audio.channels[1]!, (i) => sine(i, 44100, 880, 0.25))).toBeLessThan(1e-4);
  });

  it('skips LIST and odd-sized chunks, with or without their pad byte', () => {
    const list = chunk('LIST', Buffer.from('INFOISFT\x05\x00\x00\x00Herald'));
    const odd = chunk('junk', Buffer.from('abc'));
    const oddUnpadded = chunk('junk', Buffer.from('abc'), { pad: false });
    const data = chunk('data', pcm16([1000, -1000, 2000]));
    for (const bytes of [riff([list, fmt16(1, 16000), odd, data]), riff([fmt16(1, 16000), oddUnpadded, data])]) {
      const audio = readWav(bytes);
      expect([...audio.channels[0]!].map((v) => v * 32768)).toEqual([1000, -1000, 2000]);
    }
  });

  it('reads to the end of the file when the data size was left as 0xFFFFFFFF or 0 by a streaming writer', () => {
    const samples = pcm16([5, 6, 7, 8]);
    for (const size of [0xffffffff, 0]) {
      const bytes = riff([fmt16(1, 8000), chunk('data', samples, { size })], 'RIFF', 0xffffffff);
      expect(readWav(bytes).channels[0]).toHaveLength(4);
      expect(wavDurationSeconds(bytes)).toBe(4 / 8000);
    }
  });

  it('reads RF64 files, taking the data size from the ds64 chunk', () => {
    const ds64 = Buffer.alloc(28);
    ds64.writeBigUInt64LE(0n, 0);
    ds64.writeBigUInt64LE(6n, 8); // data bytes
    ds64.writeBigUInt64LE(3n, 16);
    const bytes = riff([chunk('ds64', ds64), fmt16(1, 8000), chunk('data', pcm16([1, 2, 3]), { size: 0xffffffff })], 'RF64', 0xffffffff);
    expect([...readWav(bytes).channels[0]!].map((v) => v * 32768)).toEqual([1, 2, 3]);
  });

  it('keeps the whole frames of a truncated download', () => {
    const bytes = riff([fmt16(2, 8000), chunk('data', pcm16([1, 2, 3, 4, 5]), { size: 4000 })]);
    const audio = readWav(bytes);
    expect(audio.channels.map((c) => [...c].map((v) => v * 32768))).toEqual([
      [1, 3],
      [2, 4],
    ]);
  });

  it('reports an empty file, a file of headers only and a header without audio', () => {
    expect(wavError(new Uint8Array()).code).toBe('empty');
    expect(wavError(riff([fmt16(1, 8000), chunk('data', Buffer.alloc(0))])).code).toBe('empty');
    expect(wavError(riff([fmt16(1, 8000)])).code).toBe('corrupt');
  });

  it('reports a cut-off header and a non-WAV file as damaged', () => {
    const cut = wavError(fixture('corrupt.wav'));
    expect(cut.code).toBe('corrupt');
    expect(cut.message).toMatch(/damaged or incomplete/);
    expect(wavError(fixture('not-audio.png')).code).toBe('corrupt');
  });

  it('names compressed WAV encodings it cannot read', () => {
    const adpcm = fmt16(1, 8000, 4, 2);
    adpcm.writeUInt16LE(256, 8 + 12); // MS ADPCM packs samples in 256-byte blocks
    const error = wavError(riff([adpcm, chunk('data', Buffer.alloc(512))]));
    expect(error.code).toBe('unsupported_format');
    expect(error.message).toMatch(/format 2/);
  });
});

describe('writeWav', () => {
  it('writes a canonical 16-bit PCM header that readWav and the duration agree on', () => {
    const samples = new Int16Array([100, -100, 32767, -32768, 0, 1]);
    const bytes = writeWav(samples, 22050, 2);
    expect(bytes.length).toBe(44 + 12);
    expect(bytes.toString('latin1', 0, 4)).toBe('RIFF');
    expect(bytes.readUInt32LE(4)).toBe(36 + 12);
    expect(bytes.toString('latin1', 8, 16)).toBe('WAVEfmt ');
    expect(bytes.readUInt16LE(20)).toBe(1);
    expect(bytes.readUInt16LE(22)).toBe(2);
    expect(bytes.readUInt32LE(24)).toBe(22050);
    expect(bytes.readUInt32LE(28)).toBe(22050 * 4);
    expect(bytes.readUInt16LE(32)).toBe(4);
    expect(bytes.readUInt16LE(34)).toBe(16);
    expect(bytes.readUInt32LE(40)).toBe(12);
    const audio = readWav(bytes);
    expect(audio.channels.map((c) => [...c].map((v) => v * 32768))).toEqual([
      [100, 32767, 0],
      [-100, -32768, 1],
    ]);
    expect(wavDurationSeconds(bytes)).toBeCloseTo(3 / 22050, 12);
  });

  it('refuses samples that do not divide into the channels', () => {
    expect(() => writeWav(new Int16Array(3), 8000, 2)).toThrow(RangeError);
  });
});
