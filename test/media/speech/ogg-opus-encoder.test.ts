import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OggOpusDecoder } from 'ogg-opus-decoder';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaError } from '../../../src/errors.ts';
import { upsample2x } from '../../../src/media/speech/half-band-upsampler.ts';
import { encodeVoiceMessage, type VoiceMessageAudio } from '../../../src/media/speech/ogg-opus-encoder.ts';
import { oggCrc32 } from '../../../src/media/ogg-crc.ts';
import { hasNativeOpus, nativeOpusNote } from '../../helpers/native-opus.ts';
import { ffmpegNote, hasFfmpeg } from './ffmpeg.ts';
import { speechLike } from './signals.ts';

interface Page {
  flags: number;
  granule: bigint;
  serial: number;
  sequence: number;
  crcOk: boolean;
  packets: Buffer[];
}

/** Minimal Ogg reader for checking the writer's framing (packets never span pages in our output). */
function readPages(ogg: Buffer): Page[] {
  const pages: Page[] = [];
  for (let at = 0; at < ogg.length; ) {
    expect(ogg.toString('latin1', at, at + 4)).toBe('OggS');
    const segments = ogg[at + 26]!;
    const lacing = [...ogg.subarray(at + 27, at + 27 + segments)];
    const size = 27 + segments + lacing.reduce((a, b) => a + b, 0);
    const page = Buffer.from(ogg.subarray(at, at + size));
    const crc = page.readUInt32LE(22);
    page.writeUInt32LE(0, 22);
    const packets: Buffer[] = [];
    let body = 27 + segments;
    let length = 0;
    for (const lace of lacing) {
      length += lace;
      if (lace < 255) {
        packets.push(page.subarray(body, body + length));
        body += length;
        length = 0;
      }
    }
    pages.push({
      flags: page[5]!,
      granule: page.readBigUInt64LE(6),
      serial: page.readUInt32LE(14),
      sequence: page.readUInt32LE(18),
      crcOk: oggCrc32(page) === crc,
      packets,
    });
    at += size;
  }
  return pages;
}

function correlation(a: ArrayLike<number>, b: ArrayLike<number>, from: number, to: number): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = from; i < to; i++) {
    ab += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return ab / Math.sqrt(aa * bb);
}

async function decode(ogg: Buffer) {
  const decoder = new OggOpusDecoder();
  await decoder.ready;
  try {
    return await decoder.decodeFile(ogg);
  } finally {
    decoder.free();
  }
}

const SPEECH_24K = speechLike(3.7, 24000); // 88,800 samples: not a whole number of 20 ms frames

describe('Ogg CRC-32', () => {
  it('matches the check value of the unreflected 0x04C11DB7 CRC with zero init and no final XOR', () => {
    // CRC-32/POSIX of "123456789" is 0x765E7680; it differs from Ogg's only by the final XOR with ~0.
    expect(oggCrc32(Buffer.from('123456789'))).toBe((0x765e7680 ^ 0xffffffff) >>> 0);
  });
});

describe('encodeVoiceMessage', () => {
  let speech: VoiceMessageAudio;
  beforeAll(async () => {
    speech = await encodeVoiceMessage({ sampleRate: 24000, channels: [SPEECH_24K] }, { serial: 0x1234abcd });
  });

  it('writes a well-formed Ogg Opus stream whose last granule gives the exact length', () => {
    const pages = readPages(speech.ogg);
    expect(pages.every((p) => p.crcOk)).toBe(true);
    expect(pages.every((p) => p.serial === 0x1234abcd)).toBe(true);
    expect(pages.map((p) => p.sequence)).toEqual(pages.map((_, i) => i));
    expect(pages.map((p) => p.flags)).toEqual([0x02, ...pages.slice(1, -1).map(() => 0), 0x04]);

    const head = pages[0]!.packets[0]!;
    expect(pages[0]!.packets).toHaveLength(1);
    expect(head.toString('latin1', 0, 8)).toBe('OpusHead');
    expect(head[8]).toBe(1); // version
    expect(head[9]).toBe(1); // mono
    expect(head.readUInt16LE(10)).toBe(312); // pre-skip = encoder lookahead
    expect(head.readUInt32LE(12)).toBe(24000); // original input rate
    expect(head[18]).toBe(0);
    expect(pages[1]!.packets[0]!.toString('latin1', 0, 8)).toBe('OpusTags');
    expect(pages[1]!.granule).toBe(0n);

    const audioPages = pages.slice(2);
    const packets = audioPages.flatMap((p) => p.packets);
    expect(packets.length).toBe(Math.ceil((SPEECH_24K.length * 2 + 312) / 960));
    expect(packets.every((p) => p[0]! >> 3 >= 16)).toBe(true); // CELT-only, 20 ms TOC configs
    expect(audioPages.at(-1)!.granule).toBe(BigInt(312 + SPEECH_24K.length * 2));
    const granules = audioPages.map((p) => p.granule);
    expect(granules).toEqual([...granules].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('decodes independently (ogg-opus-decoder) to exactly the input length, in time with the input', async () => {
    expect(speech.durationSeconds).toBe(3.7);
    const decoded = await decode(speech.ogg);
    expect(decoded.errors).toEqual([]);
    expect(decoded.sampleRate).toBe(48000);
    expect(decoded.samplesDecoded).toBe(SPEECH_24K.length * 2);
    // Lossy, but aligned: pre-skip removes exactly the encoder delay, so sample n matches sample n.
    const reference = upsample2x(SPEECH_24K);
    expect(correlation(reference, decoded.channelData[0]!, 0, reference.length)).toBeGreaterThan(0.9);
    const shifted = decoded.channelData[0]!.subarray(48);
    expect(correlation(reference, shifted, 0, shifted.length)).toBeLessThan(0.9);
  });

  it.skipIf(!hasNativeOpus)(`writes the same bytes with native libopus as with the wasm fallback${nativeOpusNote}`, async () => {
    const audio = { sampleRate: 24000, channels: [SPEECH_24K] };
    const native = await encodeVoiceMessage(audio, { serial: 7, backend: 'native' });
    const wasm = await encodeVoiceMessage(audio, { serial: 7, backend: 'wasm' });
    expect(native.ogg.equals(wasm.ogg)).toBe(true);
    expect(native.waveform).toBe(wasm.waveform);
  });

  it('codes at about 32 kbps', () => {
    const kbps = (speech.ogg.length * 8) / 3.7 / 1000;
    expect(kbps).toBeGreaterThan(24);
    expect(kbps).toBeLessThan(40);
  });

  it('takes 48 kHz and 16 kHz audio too, and downmixes stereo', async () => {
    const speech48 = upsample2x(SPEECH_24K).map((v) => v * 0.5);
    const stereo = await encodeVoiceMessage({ sampleRate: 48000, channels: [speech48, speech48] });
    expect((await decode(stereo.ogg)).samplesDecoded).toBe(speech48.length);
    expect(stereo.durationSeconds).toBe(3.7);

    const speech16 = speechLike(1.01, 16000);
    const narrow = await encodeVoiceMessage({ sampleRate: 16000, channels: [speech16] });
    expect((await decode(narrow.ogg)).samplesDecoded).toBe(speech16.length * 3);
    expect(narrow.durationSeconds).toBeCloseTo(1.01, 10);
  });

  it('refuses rates it cannot convert and empty audio, with MediaError codes', async () => {
    await expect(encodeVoiceMessage({ sampleRate: 44100, channels: [new Float32Array(4410)] })).rejects.toMatchObject({
      name: 'MediaError',
      code: 'unsupported_format',
    });
    await expect(encodeVoiceMessage({ sampleRate: 24000, channels: [new Float32Array(0)] })).rejects.toBeInstanceOf(MediaError);
    await expect(encodeVoiceMessage({ sampleRate: 24000, channels: [] })).rejects.toMatchObject({ code: 'empty' });
  });

  it('keeps a short clip exact: 0.1 s decodes to its own length', async () => {
    const clip = speechLike(0.1, 24000);
    const { ogg, durationSeconds } = await encodeVoiceMessage({ sampleRate: 24000, channels: [clip] });
    expect(durationSeconds).toBeCloseTo(0.1, 12);
    expect((await decode(ogg)).samplesDecoded).toBe(4800);
  });

  describe.skipIf(!hasFfmpeg)(`checked by ffmpeg${ffmpegNote}`, () => {
    let dir = '';
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'herald-speech-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('is a valid mono 48 kHz Opus stream with the input duration, decoding to the input sample count', () => {
      const file = join(dir, 'voice.ogg');
      writeFileSync(file, speech.ogg);
      const probe = spawnSync('ffprobe', ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', file], {
        encoding: 'utf8',
      });
      expect(probe.status).toBe(0);
      expect(probe.stderr).toBe('');
      const info = JSON.parse(probe.stdout) as {
        streams: { codec_name: string; channels: number; sample_rate: string }[];
        format: { format_name: string; duration: string };
      };
      expect(info.format.format_name).toBe('ogg');
      expect(info.streams).toHaveLength(1);
      expect(info.streams[0]).toMatchObject({ codec_name: 'opus', channels: 1, sample_rate: '48000' });
      expect(Math.abs(Number(info.format.duration) - speech.durationSeconds)).toBeLessThan(0.02);

      const args = ['-v', 'warning', '-i', file, '-f', 's16le', '-ac', '1', '-ar', '48000', '-'];
      const decoded = spawnSync('ffmpeg', args, { maxBuffer: 64 * 2 ** 20 });
      expect(decoded.status).toBe(0);
      expect(decoded.stderr.toString()).toBe(''); // no CRC mismatch or other complaint
      expect(decoded.stdout.length / 2).toBe(SPEECH_24K.length * 2);
    });

    it('trims a one-sample clip, a single Opus packet, to its one sample', async () => {
      const { ogg } = await encodeVoiceMessage({ sampleRate: 24000, channels: [Float32Array.of(0.5)] });
      const file = join(dir, 'click.ogg');
      writeFileSync(file, ogg);
      const decoded = spawnSync('ffmpeg', ['-v', 'warning', '-i', file, '-f', 's16le', '-']);
      expect(decoded.stderr.toString()).toBe('');
      expect(decoded.stdout.length / 2).toBe(2);
    });
  });
});
