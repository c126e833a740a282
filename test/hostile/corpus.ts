import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { OggPageWriter } from '../../src/media/speech/ogg-page-writer.ts';
import { pdfFile, scannedPdf } from '../fixtures/documents/pdf-file.ts';

/**
 * Files a hostile member could attach, built when the tests run: decompression bombs whose headers declare far
 * more than their bytes hold, headers that lie about an audio stream, and an empty and a truncated file of every
 * format Herald reads.
 */
export interface HostileFile {
  name: string;
  bytes: Buffer;
  /** A bomb cost far more than its size before Herald checked headers; the rest are damaged, empty or lying files. */
  bomb: boolean;
  /** What the user should be told, in one line. */
  expected: RegExp;
}

const fixtures = join(import.meta.dirname, '..', 'fixtures');
const fixture = (path: string) => readFileSync(join(fixtures, path));

const TOO_LARGE = /too large to read \(\d+×\d+\)/;
const DAMAGED = /damaged|incomplete|could not be read|couldn't open/i;
const EMPTY = /empty|no sound|contains no/i;

function le16(value: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(value);
  return b;
}

function le32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value >>> 0);
  return b;
}

/**
 * An 8-bit RLE BMP declaring `width`×`height`, every row painted by runs of 255 pixels (two bytes each), about
 * 2 MB for 16383×16383.
 */
export function rleBmpBomb(width = 16383, height = 16383): Buffer {
  const palette = Buffer.from([0, 0, 0, 0, 255, 255, 255, 0]);
  const row: number[] = [];
  for (let x = 0; x < width; x += 255) row.push(Math.min(255, width - x), 1);
  row.push(0, 0); // end of line
  const rows = Buffer.concat([...Array<Buffer>(height).fill(Buffer.from(row)), Buffer.from([0, 1])]);
  const dataOffset = 14 + 40 + palette.length;
  const info = Buffer.concat([
    le32(40),
    le32(width),
    le32(height),
    le16(1),
    le16(8),
    le32(1),
    le32(rows.length),
    le32(2835),
    le32(2835),
    le32(2),
    le32(0),
  ]);
  const header = Buffer.concat([Buffer.from('BM'), le32(dataOffset + rows.length), le32(0), le32(dataOffset)]);
  return Buffer.concat([header, info, palette, rows]);
}

/** A GIF whose logical screen is 65535×65535 around a single 1×1 frame. */
export function gifScreenBomb(): Buffer {
  return Buffer.concat([
    Buffer.from('GIF89a'),
    le16(65535),
    le16(65535),
    Buffer.from([0, 0, 0]),
    // image descriptor at 0,0, 1×1, with a two-colour local table; LZW: clear, index 0, end
    Buffer.from([0x2c]),
    le16(0),
    le16(0),
    le16(1),
    le16(1),
    Buffer.from([0x80]),
    Buffer.from([255, 0, 0, 0, 0, 0]),
    Buffer.from([2, 2, 0x44, 0x01, 0]),
    Buffer.from([0x3b]),
  ]);
}

/** An uncompressed 8-bit grey TIFF declaring 16383×16383 with 64 bytes of strip data. */
export function tiffStripBomb(): Buffer {
  const entries: [number, number, number][] = [
    [256, 4, 16383], // ImageWidth
    [257, 4, 16383], // ImageLength
    [258, 3, 8], // BitsPerSample
    [259, 3, 1], // Compression: none
    [262, 3, 1], // PhotometricInterpretation: black is zero
    [273, 4, 0], // StripOffsets, patched below
    [277, 3, 1], // SamplesPerPixel
    [278, 4, 16383], // RowsPerStrip
    [279, 4, 64], // StripByteCounts
  ];
  const ifdSize = 2 + entries.length * 12 + 4;
  const dataOffset = 8 + ifdSize;
  const ifd = [le16(entries.length)];
  for (const [tag, type, value] of entries) {
    const field = Buffer.alloc(12);
    field.writeUInt16LE(tag, 0);
    field.writeUInt16LE(type, 2);
    field.writeUInt32LE(1, 4);
    if (type === 3) field.writeUInt16LE(value, 8);
    else field.writeUInt32LE(tag === 273 ? dataOffset : value, 8);
    ifd.push(field);
  }
  ifd.push(le32(0));
  return Buffer.concat([Buffer.from('II'), le16(42), le32(8), ...ifd, Buffer.alloc(64, 0x80)]);
}

/** The HEIC or AVIF fixture with every `ispe` (stored image size) property changed to claim `width`×`height`. */
export function heifSizeBomb(format: 'heic' | 'avif', width = 16000, height = 16000): Buffer {
  const bytes = Buffer.from(fixture(`images/marker.${format}`));
  for (let at = bytes.indexOf('ispe'); at >= 0; at = bytes.indexOf('ispe', at + 4)) {
    bytes.writeUInt32BE(width, at + 8);
    bytes.writeUInt32BE(height, at + 12);
  }
  return bytes;
}

/** An SVG declaring 100000×100000 whose whole area is blurred by a filter. */
export function svgFilterBomb(): Buffer {
  return Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000">' +
      '<filter id="b" x="0" y="0" width="1" height="1"><feGaussianBlur stdDeviation="5000"/><feMorphology radius="3000"/></filter>' +
      '<rect width="100000" height="100000" fill="red" filter="url(#b)"/></svg>',
  );
}

/** A PDF without a text layer whose one page draws a `side`×`side` grey Flate image (about 250 KB of file). */
export function pdfImageBomb(side = 16000): Buffer {
  return scannedPdf([{ deflatedGrey: deflateSync(Buffer.alloc(side * side, 0x7f), { level: 9 }), width: side, height: side }]);
}

/** A 16-bit mono WAV of one second of silence whose header claims `sampleRate` (and a matching byte rate). */
export function wavRateLie(sampleRate = 19_999_999): Buffer {
  const data = Buffer.alloc(32000);
  const fmt = Buffer.concat([le16(1), le16(1), le32(sampleRate), le32(sampleRate * 2), le16(2), le16(16)]);
  const body = Buffer.concat([Buffer.from('WAVE'), Buffer.from('fmt '), le32(16), fmt, Buffer.from('data'), le32(data.length), data]);
  return Buffer.concat([Buffer.from('RIFF'), le32(body.length), body]);
}

/** A WAV whose header claims 4 GB of 8-channel audio at 8 kHz, with a few bytes of it. */
export function wavLengthLie(): Buffer {
  const fmt = Buffer.concat([le16(1), le16(8), le32(8000), le32(8000 * 16), le16(16), le16(16)]);
  const body = Buffer.concat([Buffer.from('WAVE'), Buffer.from('fmt '), le32(16), fmt, Buffer.from('data'), le32(0xfffffff0), Buffer.alloc(1600)]);
  return Buffer.concat([Buffer.from('RIFF'), le32(0xfffffff8), body]);
}

/** The voice-note fixture with its OpusHead changed to claim 255 channels in one stream. */
export function oggChannelLie(): Buffer {
  const bytes = Buffer.from(fixture('audio/voice-note.ogg'));
  const head = bytes.indexOf('OpusHead');
  bytes[head + 9] = 255;
  return bytes;
}

/**
 * An Ogg Opus stream whose OpusHead declares 255 channels in 255 streams (mapping family 255), then 500 packets in
 * which every stream holds six empty 20 ms frames (RFC 6716 §3.2.5, self-delimited as in Appendix B): 380 KB that
 * decode to 255 channels of two minutes of concealment noise.
 */
export function oggChannelBomb(): Buffer {
  const head = Buffer.alloc(21 + 255);
  head.write('OpusHead', 0, 'latin1');
  head[8] = 1;
  head[9] = 255;
  head.writeUInt32LE(48000, 12);
  head[18] = 255;
  head[19] = 255;
  head[20] = 0;
  for (let c = 0; c < 255; c++) head[21 + c] = c;
  const tags = Buffer.concat([Buffer.from('OpusTags', 'latin1'), le32(4), Buffer.from('bomb', 'latin1'), le32(0)]);
  const writer = new OggPageWriter(0x0b0b);
  writer.page([{ data: head, granule: 0n }]);
  writer.page([{ data: tags, granule: 0n }]);
  // TOC 0xfb: CELT fullband 20 ms, code 3; 0x06: six frames of one size; then that size, 0, in every stream but the last.
  const selfDelimited = Buffer.from([0xfb, 0x06, 0x00]);
  const packet = Buffer.concat([...Array<Buffer>(254).fill(selfDelimited), Buffer.from([0xfb, 0x06])]);
  for (let page = 0; page < 250; page++) {
    writer.page(
      [0, 1].map((i) => ({ data: packet, granule: BigInt((page * 2 + i + 1) * 5760) })),
      { last: page === 249 },
    );
  }
  return writer.bytes();
}

/** The WebM voice-note fixture with its audio track claiming a sampling frequency of 1e30 Hz and 255 channels. */
export function matroskaRateLie(): Buffer {
  const bytes = Buffer.from(fixture('audio/voice-note.webm'));
  const rate = bytes.indexOf(Buffer.from([0xb5, 0x88]));
  if (rate >= 0) bytes.writeDoubleBE(1e30, rate + 2);
  const channels = bytes.indexOf(Buffer.from([0x9f, 0x81]));
  if (channels >= 0) bytes[channels + 2] = 255;
  return bytes;
}

const truncate = (bytes: Buffer) => bytes.subarray(0, Math.floor(bytes.length / 2));

export function bombs(): HostileFile[] {
  return [
    { name: 'rle-bomb.bmp', bytes: rleBmpBomb(), bomb: true, expected: TOO_LARGE },
    { name: 'screen-bomb.gif', bytes: gifScreenBomb(), bomb: true, expected: /image\/gif 1x1/ },
    { name: 'strip-bomb.tif', bytes: tiffStripBomb(), bomb: true, expected: DAMAGED },
    { name: 'size-bomb.heic', bytes: heifSizeBomb('heic'), bomb: true, expected: TOO_LARGE },
    { name: 'size-bomb.avif', bytes: heifSizeBomb('avif'), bomb: true, expected: TOO_LARGE },
    { name: 'filter-bomb.svg', bytes: svgFilterBomb(), bomb: true, expected: /too complex to read in time/ },
    {
      name: 'image-bomb.pdf',
      bytes: pdfImageBomb(),
      bomb: true,
      expected: /is a scan whose page pictures are too large to read \(over 36 megapixels\)/,
    },
    { name: 'rate-lie.wav', bytes: wavRateLie(), bomb: true, expected: /sample rate/i },
    { name: 'length-lie.wav', bytes: wavLengthLie(), bomb: false, expected: /Transcript of 0\.01 s/ },
    { name: 'channel-lie.ogg', bytes: oggChannelLie(), bomb: false, expected: DAMAGED },
    { name: 'channel-bomb.ogg', bytes: oggChannelBomb(), bomb: true, expected: /has 255 channels/ },
    { name: 'rate-lie.webm', bytes: matroskaRateLie(), bomb: true, expected: DAMAGED },
  ];
}

/** Every format Herald reads, as a sound file to be cut short and emptied. */
const SOUND: [string, () => Buffer][] = [
  ['photo.jpg', () => fixture('images/photo-orientation-6.jpg')],
  ['marker.png', () => fixture('images/huge-5000x4000.png')],
  ['animated.gif', () => fixture('images/animated.gif')],
  ['marker.webp', () => fixture('images/marker.webp')],
  ['marker.bmp', () => fixture('images/marker.bmp')],
  ['marker.heic', () => fixture('images/marker.heic')],
  ['marker.avif', () => fixture('images/marker.avif')],
  ['marker.tif', () => fixture('images/marker-orientation-8.tif')],
  ['marker.svg', () => fixture('images/marker.svg')],
  ['voice.ogg', () => fixture('audio/voice-note.ogg')],
  ['voice.webm', () => fixture('audio/voice-note.webm')],
  ['speech.wav', () => fixture('audio/stereo-44k.wav')],
  ['speech.mp3', () => fixture('audio/speech.mp3')],
  ['speech.flac', () => fixture('audio/speech.flac')],
  ['speech.m4a', () => fixture('audio/speech.m4a')],
  ['report.pdf', () => pdfFile([['Quarterly report', 'Net income: 4 million'], ['Outlook: steady']])],
  ['notes.txt', () => Buffer.from('Ünïcödé notes: ☕ ✓ '.repeat(40))],
];

export function emptyFiles(): HostileFile[] {
  return SOUND.map(([name]) => ({ name: `empty-${name}`, bytes: Buffer.alloc(0), bomb: false, expected: EMPTY }));
}

export function truncatedFiles(): HostileFile[] {
  return SOUND.map(([name, make]) => ({ name: `truncated-${name}`, bytes: truncate(make()), bomb: false, expected: /./ }));
}

export function hostileCorpus(): HostileFile[] {
  return [...bombs(), ...emptyFiles(), ...truncatedFiles()];
}
