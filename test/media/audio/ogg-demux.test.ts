import { describe, expect, it } from 'vitest';
import { decodeAudio } from '../../../src/media/audio/decode-audio.ts';
import { demuxOgg } from '../../../src/media/audio/ogg-demux.ts';
import { oggCrc32 } from '../../../src/media/ogg-crc.ts';
import { fixture } from './audio-fixtures.ts';

// voice-note.ogg: 48 kHz mono Opus; ffmpeg's libopus decodes it to this many samples.
const NOTE_SAMPLES = 341_384;

interface Page {
  start: number;
  end: number;
  packetsEnding: number;
}

function pages(bytes: Uint8Array): Page[] {
  const out: Page[] = [];
  for (let at = 0; at < bytes.length; ) {
    const count = bytes[at + 26]!;
    const lacing = bytes.subarray(at + 27, at + 27 + count);
    const end = at + 27 + count + lacing.reduce((sum, v) => sum + v, 0);
    out.push({ start: at, end, packetsEnding: lacing.filter((v) => v < 255).length });
    at = end;
  }
  return out;
}

/** Rewrites a page's CRC after its bytes were changed on purpose. */
function resign(bytes: Uint8Array, page: Page): void {
  const copy = bytes.slice(page.start, page.end);
  copy.fill(0, 22, 26);
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(page.start + 22, oggCrc32(copy), true);
}

function rms(samples: Float32Array): number {
  let sum = 0;
  for (const v of samples) sum += v * v;
  return Math.sqrt(sum / samples.length);
}

describe('Ogg demuxing', () => {
  it('splits the voice note into its header packets and 20 ms audio packets, the last one on the end-of-stream page', () => {
    const { streams, damaged } = demuxOgg(fixture('voice-note.ogg'));
    expect(damaged).toBe(0);
    expect(streams).toHaveLength(1);
    const packets = streams[0]!.packets;
    expect(new TextDecoder().decode(packets[0]!.data.subarray(0, 8))).toBe('OpusHead');
    expect(new TextDecoder().decode(packets[1]!.data.subarray(0, 8))).toBe('OpusTags');
    expect(packets.slice(2)).toHaveLength(Math.ceil((NOTE_SAMPLES + 312) / 960));
    expect(packets.at(-1)!.last).toBe(true);
    expect(packets.at(-1)!.granule).toBe(BigInt(NOTE_SAMPLES + 312));
    expect(packets.slice(0, -1).some((p) => p.last)).toBe(false);
  });

  it('skips a page whose checksum fails, losing only its packets, and still decodes the rest of the note', async () => {
    const bytes = fixture('voice-note.ogg').slice();
    const list = pages(bytes);
    const hit = list[4]!;
    bytes[hit.end - 10]! ^= 0xff;
    const { streams, damaged } = demuxOgg(bytes);
    expect(damaged).toBeGreaterThanOrEqual(1);
    const intact = demuxOgg(fixture('voice-note.ogg')).streams[0]!.packets.length;
    // The page's own packets go, and the one it started that the next page finishes.
    expect(streams[0]!.packets.length).toBeLessThan(intact);
    expect(streams[0]!.packets.length).toBeGreaterThanOrEqual(intact - hit.packetsEnding - 1);

    const audio = await decodeAudio(bytes, 'ogg-opus');
    expect(audio.channels[0]!.length).toBeLessThan(NOTE_SAMPLES);
    expect(audio.channels[0]!.length).toBeGreaterThan(NOTE_SAMPLES - 60 * 960);
  });

  it('finds its way back after garbage between pages', async () => {
    const note = fixture('voice-note.ogg');
    const cut = pages(note)[6]!.start;
    const garbage = new Uint8Array(777).fill(0x4f);
    const bytes = new Uint8Array([...note.subarray(0, cut), ...garbage, ...note.subarray(cut)]);
    const { damaged } = demuxOgg(bytes);
    expect(damaged).toBe(1);
    expect((await decodeAudio(bytes, 'ogg-opus')).channels[0]).toHaveLength(NOTE_SAMPLES);
  });

  it('decodes two notes chained in one file (cat a.ogg b.ogg) one after the other, each trimmed', async () => {
    const note = fixture('voice-note.ogg');
    const bytes = new Uint8Array([...note, ...note]);
    expect(demuxOgg(bytes).streams).toHaveLength(2);
    const audio = await decodeAudio(bytes, 'ogg-opus');
    expect(audio.channels[0]).toHaveLength(2 * NOTE_SAMPLES);
    const single = (await decodeAudio(note, 'ogg-opus')).channels[0]!;
    expect(audio.channels[0]!.subarray(NOTE_SAMPLES)).toEqual(single);
  });

  it('applies the output gain the OpusHead asks for', async () => {
    const bytes = fixture('voice-note.ogg').slice();
    const first = pages(bytes)[0]!;
    // OpusHead bytes 16-17: gain in Q7.8 dB. +6.0206 dB doubles the amplitude.
    new DataView(bytes.buffer, bytes.byteOffset).setInt16(first.start + 27 + 1 + 16, Math.round(6.0206 * 256), true);
    resign(bytes, first);
    const plain = (await decodeAudio(fixture('voice-note.ogg'), 'ogg-opus')).channels[0]!;
    const louder = (await decodeAudio(bytes, 'ogg-opus')).channels[0]!;
    expect(rms(louder) / rms(plain)).toBeCloseTo(2, 2);
  });

  it('leaves out a page cut off at the end of a download', () => {
    const note = fixture('voice-note.ogg');
    const list = pages(note);
    const whole = demuxOgg(note.subarray(0, list[5]!.end)).streams[0]!.packets.length;
    const cut = demuxOgg(note.subarray(0, list[6]!.end - 3));
    expect(cut.streams[0]!.packets).toHaveLength(whole);
    expect(cut.damaged).toBe(0);
  });
});
