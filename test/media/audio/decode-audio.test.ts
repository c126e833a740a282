import { describe, expect, it, vi } from 'vitest';
import { decodeAudio, type InProcessFormat } from '../../../src/media/audio/decode-audio.ts';
import { demuxMatroskaAudio } from '../../../src/media/audio/matroska.ts';
import { MediaError } from '../../../src/errors.ts';
import type { OpusBackend } from '../../../src/media/opus-backend.ts';
import { hasNativeOpus, nativeOpusNote } from '../../helpers/native-opus.ts';
import { FFMPEG, ffmpegDecode, fixture, fixturePath, NO_FFMPEG, rms } from './audio-fixtures.ts';

const OPUS_BACKENDS: OpusBackend[] = hasNativeOpus ? ['native', 'wasm'] : ['wasm'];

// Sample counts ffmpeg reports for the committed fixtures (libopus decoder for Opus, at 48 kHz).
const OPUS_SAMPLES_48K = 341_384;
const SPEECH_SAMPLES_22K = 156_823;

/** RMS per 20 ms at 16 kHz. */
function envelope(samples: Float32Array): number[] {
  const out: number[] = [];
  for (let at = 0; at + 320 <= samples.length; at += 320) out.push(rms(samples, at, at + 320));
  return out;
}

function correlation(a: number[], b: number[]): number {
  const mean = (x: number[]) => x.reduce((s, v) => s + v, 0) / x.length;
  const ma = mean(a);
  const mb = mean(b);
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += (a[i]! - ma) * (b[i]! - mb);
    aa += (a[i]! - ma) ** 2;
    bb += (b[i]! - mb) ** 2;
  }
  return ab / Math.sqrt(aa * bb);
}

function maxDifference(a: Float32Array, b: Float32Array): number {
  let worst = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
  return worst;
}

async function decodeError(bytes: Uint8Array, format: InProcessFormat): Promise<MediaError> {
  const error = await decodeAudio(bytes, format).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MediaError);
  return error as MediaError;
}

describe.each(OPUS_BACKENDS)('Opus decoding with %s libopus is sample-exact', (opusBackend) => {
  it.each([
    ['voice-note.ogg', 'ogg-opus'],
    ['voice-note.webm', 'webm-opus'],
  ] as const)("%s decodes to exactly the samples ffmpeg's libopus gives, pre-skip and end padding trimmed", async (name, format) => {
    const audio = await decodeAudio(fixture(name), format, { opusBackend });
    expect(audio.sampleRate).toBe(48000);
    expect(audio.channels).toHaveLength(1);
    expect(audio.channels[0]).toHaveLength(OPUS_SAMPLES_48K);
  });

  it.for([
    ['voice-note.ogg', 'ogg-opus'],
    ['voice-note.webm', 'webm-opus'],
  ] as const)('%s matches a live ffmpeg libopus decode in length and in value', async ([name, format], ctx) => {
    if (!FFMPEG) ctx.skip(NO_FFMPEG);
    const reference = ffmpegDecode(fixturePath(name), { libopus: true });
    const audio = await decodeAudio(fixture(name), format, { opusBackend });
    expect(audio.channels[0]!.length).toBe(reference.length);
    expect(maxDifference(audio.channels[0]!, reference)).toBeLessThan(2e-3);
  });

  it.each([
    ['voice-note.ogg', 'ogg-opus'],
    ['voice-note.webm', 'webm-opus'],
  ] as const)('%s rendered by libopus at 16 kHz keeps the same duration', async (name, format) => {
    const audio = await decodeAudio(fixture(name), format, { opusSampleRate: 16000, opusBackend });
    expect(audio.sampleRate).toBe(16000);
    expect(Math.abs(audio.channels[0]!.length - OPUS_SAMPLES_48K / 3)).toBeLessThanOrEqual(1);
  });

  it("16 kHz rendering sounds like ffmpeg's 48 kHz decode resampled to 16 kHz", async (ctx) => {
    if (!FFMPEG) ctx.skip(NO_FFMPEG);
    // libopus synthesises 16 kHz through its own filters, so waveforms differ in phase; loudness over time must not.
    const reference = envelope(ffmpegDecode(fixturePath('voice-note.ogg'), { libopus: true, rate: 16000 }));
    const ours = envelope((await decodeAudio(fixture('voice-note.ogg'), 'ogg-opus', { opusSampleRate: 16000, opusBackend })).channels[0]!);
    expect(ours.length).toBe(reference.length);
    expect(correlation(ours, reference)).toBeGreaterThan(0.99);
  });

  it.each([
    ['voice-note.ogg', 'ogg-opus', 143_688],
    ['speech-vorbis.ogg', 'ogg-vorbis', 44_416],
    ['speech-flac.ogg', 'ogg-flac', 46_080],
  ] as const)('decodes the complete pages of a download of %s cut off halfway, as ffmpeg does', async (name, format, expected) => {
    const bytes = fixture(name);
    const audio = await decodeAudio(bytes.subarray(0, bytes.length >> 1), format, { opusBackend });
    expect(audio.channels[0]).toHaveLength(expected);
  });

  it('serves several files at once from the pooled decoders without mixing them up', async () => {
    const jobs = ['voice-note.ogg', 'speech-vorbis.ogg', 'voice-note.ogg', 'speech-vorbis.ogg'] as const;
    const format = (name: string) => (name === 'voice-note.ogg' ? 'ogg-opus' : 'ogg-vorbis');
    const alone = new Map<string, Float32Array>();
    for (const name of new Set(jobs)) alone.set(name, (await decodeAudio(fixture(name), format(name), { opusBackend })).channels[0]!);
    const together = await Promise.all(jobs.map((name) => decodeAudio(fixture(name), format(name), { opusBackend })));
    together.forEach((result, i) => {
      expect(result.channels[0]!.length).toBe(alone.get(jobs[i])!.length);
      expect(maxDifference(result.channels[0]!, alone.get(jobs[i])!)).toBe(0);
    });
  });
});

describe.skipIf(!hasNativeOpus)(`native libopus and the wasm fallback${nativeOpusNote}`, () => {
  it.each([
    ['voice-note.ogg', 'ogg-opus', 48000],
    ['voice-note.webm', 'webm-opus', 16000],
  ] as const)('decode %s (%s) to the same samples at %i Hz', async (name, format, opusSampleRate) => {
    const native = await decodeAudio(fixture(name), format, { opusSampleRate, opusBackend: 'native' });
    const wasm = await decodeAudio(fixture(name), format, { opusSampleRate, opusBackend: 'wasm' });
    expect(native.channels[0]!.length).toBe(wasm.channels[0]!.length);
    // The binding calls libopus's 16-bit API, the wasm build its float API: a few 16-bit steps apart at most.
    expect(maxDifference(native.channels[0]!, wasm.channels[0]!)).toBeLessThan(8 / 32768);
  });
});

// --- A WebM as browsers' MediaRecorder streams it: unknown-size Segment and Clusters, laced blocks. ---

function vintSize(n: number): Buffer {
  const out = Buffer.alloc(8);
  out[0] = 0x01;
  out.writeUIntBE(n, 2, 6);
  return out;
}
const UNKNOWN = Buffer.from([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
function id(value: number): Buffer {
  const bytes = value > 0xffffff ? 4 : value > 0xffff ? 3 : value > 0xff ? 2 : 1;
  const out = Buffer.alloc(bytes);
  out.writeUIntBE(value, 0, bytes);
  return out;
}
const element = (elementId: number, body: Buffer) => Buffer.concat([id(elementId), vintSize(body.length), body]);
const uint = (elementId: number, value: number) => element(elementId, Buffer.from([value]));

function block(frames: Uint8Array[], lacing: 'none' | 'xiph' | 'ebml' | 'fixed'): Buffer {
  const flags = { none: 0, xiph: 2, fixed: 4, ebml: 6 }[lacing] | 0x80;
  const head = Buffer.from([0x81, 0, 0, flags]);
  if (lacing === 'none') return Buffer.concat([head, frames[0]!]);
  const sizes: number[] = [];
  if (lacing === 'xiph') {
    for (const frame of frames.slice(0, -1)) {
      let n = frame.length;
      while (n >= 255) {
        sizes.push(255);
        n -= 255;
      }
      sizes.push(n);
    }
  } else if (lacing === 'ebml') {
    const first = 0x4000 | frames[0]!.length;
    sizes.push(first >> 8, first & 0xff);
    for (let i = 1; i < frames.length - 1; i++) {
      const coded = 0x4000 | (frames[i]!.length - frames[i - 1]!.length + 8191);
      sizes.push(coded >> 8, coded & 0xff);
    }
  }
  return Buffer.concat([head, Buffer.from([frames.length - 1, ...sizes]), ...frames]);
}

function restreamAsMediaRecorder(webm: Uint8Array): { bytes: Buffer; lacings: Set<string> } {
  const { track, packets } = demuxMatroskaAudio(webm);
  const entry = Buffer.concat([
    uint(0xd7, 1),
    uint(0x83, 2),
    element(0x86, Buffer.from('A_OPUS')),
    element(0x63a2, Buffer.from(track.codecPrivate!)),
    element(0xe1, Buffer.concat([element(0xb5, Buffer.from(new Float64Array([48000]).buffer).reverse()), uint(0x9f, 1)])),
  ]);
  const blocks: Buffer[] = [];
  const lacings = new Set<string>();
  let i = 0;
  while (i < packets.length - 1) {
    const here = packets[i]!.data;
    const next = packets[i + 1]!.data;
    let take: number;
    let lacing: 'xiph' | 'ebml' | 'fixed' | 'none';
    if (here.length === next.length && i + 1 < packets.length - 1) [take, lacing] = [2, 'fixed'];
    else if (i % 3 === 0) [take, lacing] = [3, 'xiph'];
    else if (i % 3 === 1) [take, lacing] = [3, 'ebml'];
    else [take, lacing] = [1, 'none'];
    take = Math.min(take, packets.length - 1 - i);
    if (take === 1) lacing = 'none';
    lacings.add(lacing);
    blocks.push(
      element(
        0xa3,
        block(
          packets.slice(i, i + take).map((p) => p.data),
          lacing,
        ),
      ),
    );
    i += take;
  }
  const last = packets.at(-1)!;
  const discard = Buffer.alloc(4);
  discard.writeInt32BE(last.discardPaddingNs);
  blocks.push(element(0xa0, Buffer.concat([element(0xa1, block([last.data], 'none')), element(0x75a2, discard)])));
  const half = blocks.length >> 1;
  const cluster = (content: Buffer[]) => Buffer.concat([id(0x1f43b675), UNKNOWN, uint(0xe7, 0), ...content]);
  const bytes = Buffer.concat([
    element(0x1a45dfa3, element(0x4282, Buffer.from('webm'))),
    id(0x18538067),
    UNKNOWN,
    element(0x1654ae6b, element(0xae, entry)),
    cluster(blocks.slice(0, half)),
    cluster(blocks.slice(half)),
  ]);
  return { bytes, lacings };
}

describe('WebM demuxing', () => {
  it('reads live-streamed WebM with unknown sizes and Xiph, EBML and fixed lacing to the same audio', async () => {
    const original = fixture('voice-note.webm');
    const { bytes, lacings } = restreamAsMediaRecorder(original);
    expect([...lacings].sort()).toEqual(['ebml', 'fixed', 'none', 'xiph']);
    const expected = (await decodeAudio(original, 'webm-opus')).channels[0]!;
    const actual = (await decodeAudio(bytes, 'webm-opus')).channels[0]!;
    expect(actual.length).toBe(expected.length);
    expect(maxDifference(actual, expected)).toBe(0);
  });
});

describe('other codecs', () => {
  it.each([
    ['speech.flac', 'flac'],
    ['speech-flac.ogg', 'ogg-flac'],
    ['speech-vorbis.ogg', 'ogg-vorbis'],
    ['speech.mp3', 'mp3'],
  ] as const)('%s decodes to every sample of the 22.05 kHz source, as ffmpeg counts them', async (name, format) => {
    const audio = await decodeAudio(fixture(name), format);
    expect(audio.sampleRate).toBe(22050);
    expect(audio.channels[0]).toHaveLength(SPEECH_SAMPLES_22K);
    expect(rms(audio.channels[0]!)).toBeGreaterThan(0.02);
  });

  it.for([
    ['speech.flac', 'flac', 1e-4],
    ['speech-vorbis.ogg', 'ogg-vorbis', 1e-3],
    ['speech.mp3', 'mp3', 1e-3],
  ] as const)("%s matches ffmpeg's decode sample by sample", async ([name, format, tolerance], ctx) => {
    if (!FFMPEG) ctx.skip(NO_FFMPEG);
    const reference = ffmpegDecode(fixturePath(name));
    const audio = await decodeAudio(fixture(name), format);
    expect(audio.channels[0]!.length).toBe(reference.length);
    expect(maxDifference(audio.channels[0]!, reference)).toBeLessThan(tolerance);
  });

  it('reads a WAV through the same entry point', async () => {
    const audio = await decodeAudio(fixture('stereo-44k.wav'), 'wav');
    expect(audio.sampleRate).toBe(44100);
    expect(audio.channels).toHaveLength(2);
  });
});

describe('sharing the event loop', () => {
  it('lets timers run while it decodes a file of several chunks', async () => {
    await decodeAudio(fixture('speech-flac.ogg'), 'ogg-flac'); // load the decoder first
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    await decodeAudio(fixture('speech-flac.ogg'), 'ogg-flac');
    clearInterval(timer);
    expect(ticks).toBeGreaterThanOrEqual(2);
  });
});

describe('damaged and empty streams', () => {
  it('calls a FLAC file whose frames are all garbled damaged', async () => {
    const bytes = Buffer.from(fixture('speech.flac'));
    for (let i = 9000; i < bytes.length; i += 3) bytes[i]! ^= 0x5a;
    const error = await decodeError(bytes, 'flac');
    expect(error.code).toBe('corrupt');
    expect(error.message).toMatch(/damaged/);
  });

  it('prints nothing on the console for damaged frames (the decoders would write each one there, outside the JSON logs)', async () => {
    const flac = Buffer.from(fixture('speech-flac.ogg'));
    for (let i = 2000; i < flac.length; i += 997) flac[i]! ^= 0x5a;
    const mp3 = Buffer.from(fixture('speech.mp3'));
    for (let i = 4000; i < mp3.length; i += 499) mp3[i]! ^= 0x5a;
    const printed = (['log', 'warn', 'error'] as const).map((method) => vi.spyOn(console, method).mockImplementation(() => {}));
    try {
      for (const [bytes, format] of [
        [flac, 'ogg-flac'],
        [mp3, 'mp3'],
      ] as const) {
        const outcome = await decodeAudio(bytes, format).then(
          (audio) => audio.channels[0]!.length,
          (error: unknown) => error,
        );
        if (typeof outcome !== 'number') expect(outcome).toBeInstanceOf(MediaError);
      }
      for (const spy of printed) expect(spy.mock.calls).toEqual([]);
    } finally {
      for (const spy of printed) spy.mockRestore();
    }
  });

  it('calls a voice note that stops after its headers empty', async () => {
    const bytes = fixture('voice-note.ogg');
    // Opus headers fill the first two Ogg pages; cut at the third.
    const pages = [...Buffer.from(bytes).toString('latin1').matchAll(/OggS/g)].map((m) => m.index);
    const error = await decodeError(bytes.subarray(0, pages[2]), 'ogg-opus');
    expect(error.code).toBe('empty');
    expect(error.message).toMatch(/no sound/);
  });
});
