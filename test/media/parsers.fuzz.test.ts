import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MediaError } from '../../src/errors.ts';
import { readMatroskaInfo, demuxMatroskaAudio } from '../../src/media/audio/matroska.ts';
import { demuxOgg } from '../../src/media/audio/ogg-demux.ts';
import { parseOpusHead } from '../../src/media/audio/opus-packets.ts';
import { sniffAudio } from '../../src/media/audio/sniff-audio.ts';
import { decodeBmp, readBmpHeader } from '../../src/media/image/bmp-decode.ts';
import { readHeifInfo } from '../../src/media/image/heif-info.ts';
import { MAX_DECODE_PIXELS } from '../../src/media/image/image-limits.ts';
import { sniffImage } from '../../src/media/image/sniff-image.ts';
import { tiffDataTooShort } from '../../src/media/image/tiff-strips.ts';
import { readWav, wavDurationSeconds } from '../../src/media/wav.ts';

const fixtures = join(import.meta.dirname, '..', 'fixtures');
const fixture = (path: string) => new Uint8Array(readFileSync(join(fixtures, path)));

/** A real file with some of its bytes overwritten, cut short, or both: damage the parser's structure checks must catch. */
function mutated(original: Uint8Array, headerBytes = original.length): fc.Arbitrary<Uint8Array> {
  const edit = fc.record({ at: fc.nat({ max: Math.max(0, Math.min(original.length, headerBytes) - 1) }), value: fc.integer({ min: 0, max: 255 }) });
  return fc
    .record({ edits: fc.array(edit, { minLength: 1, maxLength: 12 }), cut: fc.option(fc.nat({ max: original.length }), { nil: undefined }) })
    .map(({ edits, cut }) => {
      const bytes = original.slice(0, cut ?? original.length);
      for (const { at, value } of edits) if (at < bytes.length) bytes[at] = value;
      return bytes;
    });
}

const anyBytes = fc.uint8Array({ maxLength: 2048 });

/** Runs `parse` and checks it either returns or throws a MediaError, within `maxMs`. */
function onlyTypedErrors(parse: (bytes: Uint8Array) => unknown, maxMs = 250): (bytes: Uint8Array) => void {
  return (bytes) => {
    const started = performance.now();
    try {
      parse(bytes);
    } catch (error) {
      expect(error).toBeInstanceOf(MediaError);
    }
    expect(performance.now() - started).toBeLessThan(maxMs);
  };
}

const RUNS = { numRuns: 1500 };

describe('parsers of outside bytes give a result or a MediaError, quickly, whatever the bytes', () => {
  it('Ogg demux', () => {
    const voice = fixture('audio/voice-note.ogg');
    fc.assert(fc.property(fc.oneof(anyBytes, mutated(voice)), onlyTypedErrors(demuxOgg)), RUNS);
  });

  it('EBML/Matroska', () => {
    const webm = fixture('audio/voice-note.webm');
    const parse = (bytes: Uint8Array) => {
      readMatroskaInfo(bytes);
      demuxMatroskaAudio(bytes);
    };
    fc.assert(fc.property(fc.oneof(anyBytes, mutated(webm, 512)), onlyTypedErrors(parse)), RUNS);
  });

  it('WAV', () => {
    const wav = fixture('audio/tone-s16le.wav');
    const parse = (bytes: Uint8Array) => {
      wavDurationSeconds(bytes);
      readWav(bytes);
    };
    fc.assert(fc.property(fc.oneof(anyBytes, mutated(wav, 64)), onlyTypedErrors(parse)), RUNS);
  });

  it('OpusHead', () => {
    const head = fc.uint8Array({ minLength: 11, maxLength: 300 }).map((rest) => new Uint8Array([...Buffer.from('OpusHead'), ...rest]));
    fc.assert(
      fc.property(head, (bytes) => {
        const parsed = parseOpusHead(bytes);
        if (parsed) {
          expect(parsed.channels).toBeGreaterThan(0);
          expect(parsed.channelMappingTable.every((i) => i === 255 || i < parsed.streamCount + parsed.coupledStreamCount)).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('BMP: the header and the decoder, which never decodes more than the budget', () => {
    const bmp = fixture('images/marker.bmp');
    const smallHeader = fc
      .record({
        width: fc.integer({ min: -64, max: 64 }),
        height: fc.integer({ min: -64, max: 64 }),
        bits: fc.constantFrom(1, 4, 8, 16, 24, 32),
        compression: fc.nat({ max: 7 }),
        rest: fc.uint8Array({ maxLength: 4096 }),
      })
      .map(({ width, height, bits, compression, rest }) => {
        const header = Buffer.alloc(54);
        header.write('BM', 0, 'latin1');
        header.writeUInt32LE(54 + rest.length, 2);
        header.writeUInt32LE(54, 10);
        header.writeUInt32LE(40, 14);
        header.writeInt32LE(width, 18);
        header.writeInt32LE(height, 22);
        header.writeUInt16LE(1, 26);
        header.writeUInt16LE(bits, 28);
        header.writeUInt32LE(compression, 30);
        return new Uint8Array([...header, ...rest]);
      });
    const decode = (bytes: Uint8Array) => {
      readBmpHeader(bytes);
      const image = decodeBmp(bytes);
      expect(image.width * image.height).toBeLessThanOrEqual(MAX_DECODE_PIXELS);
      expect(image.data.length).toBe(image.width * image.height * image.channels);
    };
    fc.assert(fc.property(fc.oneof(smallHeader, mutated(bmp.subarray(0, 2048), 64), anyBytes), onlyTypedErrors(decode)), RUNS);
  });

  it('HEIF info', () => {
    const heic = fixture('images/marker.heic');
    const avif = fixture('images/marker.avif');
    fc.assert(fc.property(fc.oneof(anyBytes, mutated(heic), mutated(avif)), onlyTypedErrors(readHeifInfo)), RUNS);
  });

  it('the image sniffer and the TIFF data check', () => {
    const seeds = [
      'images/marker.png',
      'images/photo-orientation-6.jpg',
      'images/marker-orientation-8.tif',
      'images/marker.webp',
      'images/animated.gif',
      'images/marker.svg',
    ].map(fixture);
    const parse = (bytes: Uint8Array) => {
      sniffImage(bytes);
      tiffDataTooShort(bytes);
    };
    fc.assert(fc.property(fc.oneof(anyBytes, ...seeds.map((seed) => mutated(seed, 256))), onlyTypedErrors(parse)), RUNS);
  });

  it('the audio sniffer', () => {
    const seeds = [
      'audio/voice-note.ogg',
      'audio/voice-note.webm',
      'audio/tone-s16le.wav',
      'audio/speech.mp3',
      'audio/speech.flac',
      'audio/speech.m4a',
    ].map(fixture);
    fc.assert(fc.property(fc.oneof(anyBytes, ...seeds.map((seed) => mutated(seed.subarray(0, 4096), 512))), onlyTypedErrors(sniffAudio)), RUNS);
  });
});
