import { describe, expect, it } from 'vitest';
import { decodeBmp } from '../../../src/media/image/bmp-decode.ts';
import { MediaError } from '../../../src/errors.ts';

interface BmpSpec {
  width: number;
  height: number;
  bitsPerPixel: number;
  compression?: number;
  headerSize?: number;
  /** R, G, B, A masks written at offset 54 (inside a V4/V5 header, or after a 40-byte one) */
  masks?: number[];
  /** [r, g, b] entries */
  palette?: number[][];
  /** pixel data exactly as stored */
  pixels: number[];
}

function bmp(spec: BmpSpec): Buffer {
  const headerSize = spec.headerSize ?? 40;
  const masksAfter = headerSize === 40 && spec.masks ? spec.masks.length * 4 : 0;
  const paletteSize = (spec.palette?.length ?? 0) * 4;
  const offset = 14 + headerSize + masksAfter + paletteSize;
  const file = Buffer.alloc(offset + spec.pixels.length);
  file.write('BM', 0, 'latin1');
  file.writeUInt32LE(file.length, 2);
  file.writeUInt32LE(offset, 10);
  file.writeUInt32LE(headerSize, 14);
  file.writeInt32LE(spec.width, 18);
  file.writeInt32LE(spec.height, 22);
  file.writeUInt16LE(1, 26);
  file.writeUInt16LE(spec.bitsPerPixel, 28);
  file.writeUInt32LE(spec.compression ?? 0, 30);
  file.writeUInt32LE(spec.palette?.length ?? 0, 46);
  spec.masks?.forEach((mask, i) => file.writeUInt32LE(mask, 54 + i * 4));
  spec.palette?.forEach(([r, g, b], i) => {
    const at = 14 + headerSize + masksAfter + i * 4;
    file[at] = b;
    file[at + 1] = g;
    file[at + 2] = r;
  });
  Buffer.from(spec.pixels).copy(file, offset);
  return file;
}

const RED = [255, 0, 0];
const GREEN = [0, 255, 0];
const BLUE = [0, 0, 255];
const WHITE = [255, 255, 255];

describe('decodeBmp', () => {
  it('reads a bottom-up 8-bit palette image with row padding', () => {
    // 3x2: stored bottom row first; each row 3 index bytes + 1 padding byte
    const image = decodeBmp(bmp({ width: 3, height: 2, bitsPerPixel: 8, palette: [RED, GREEN, BLUE], pixels: [2, 2, 2, 0, 0, 1, 2, 0] }));
    expect(image).toMatchObject({ width: 3, height: 2, channels: 3 });
    expect([...image.data]).toEqual([...RED, ...GREEN, ...BLUE, ...BLUE, ...BLUE, ...BLUE]);
  });

  it('reads a 1-bit image', () => {
    // 10x1: bits 1010000011 -> bytes 0b10100000 0b11000000, padded to 4
    const image = decodeBmp(bmp({ width: 10, height: 1, bitsPerPixel: 1, palette: [WHITE, RED], pixels: [0b10100000, 0b11000000, 0, 0] }));
    const reds = [];
    for (let x = 0; x < 10; x++) reds.push(image.data[x * 3 + 1] === 0 ? 1 : 0);
    expect(reds).toEqual([1, 0, 1, 0, 0, 0, 0, 0, 1, 1]);
  });

  it('reads a top-down 32-bit image with an alpha mask (V5 header)', () => {
    // BGRA byte order: masks R 0x00ff0000, G 0x0000ff00, B 0x000000ff, A 0xff000000
    const image = decodeBmp(
      bmp({
        width: 2,
        height: -1,
        bitsPerPixel: 32,
        compression: 3,
        headerSize: 124,
        masks: [0x00ff0000, 0x0000ff00, 0x000000ff, 0xff000000],
        pixels: [0, 0, 255, 255, 255, 0, 0, 128],
      }),
    );
    expect(image).toMatchObject({ width: 2, height: 1, channels: 4 });
    expect([...image.data]).toEqual([255, 0, 0, 255, 0, 0, 255, 128]);
  });

  it('treats an all-zero alpha channel as opaque', () => {
    const image = decodeBmp(
      bmp({
        width: 1,
        height: 1,
        bitsPerPixel: 32,
        compression: 6,
        masks: [0x00ff0000, 0x0000ff00, 0x000000ff, 0xff000000],
        pixels: [0, 255, 0, 0],
      }),
    );
    expect(image.channels).toBe(3);
    expect([...image.data]).toEqual(GREEN);
  });

  it('reads 16-bit 5-6-5 bit fields, scaling each channel to 8 bits', () => {
    // 0xf800 = full red, 0x07e0 = full green
    const image = decodeBmp(
      bmp({ width: 2, height: 1, bitsPerPixel: 16, compression: 3, masks: [0xf800, 0x07e0, 0x001f], pixels: [0x00, 0xf8, 0xe0, 0x07] }),
    );
    expect([...image.data]).toEqual([...RED, ...GREEN]);
  });

  it('reads RLE8 runs, absolute runs and end of line, leaving skipped pixels transparent', () => {
    // 4x2, bottom row: run of 4 x index 1; top row: absolute run of 3 (0, 1, 0) + pad, end of line
    // before the last pixel, which stays transparent; then end of bitmap.
    const pixels = [4, 1, 0, 0, 0, 3, 0, 1, 0, 0, 0, 0, 0, 1];
    const image = decodeBmp(bmp({ width: 4, height: 2, bitsPerPixel: 8, compression: 1, palette: [RED, BLUE], pixels }));
    expect(image.channels).toBe(4);
    const px = (x: number, y: number): number[] => [...image.data.subarray((y * 4 + x) * 4, (y * 4 + x) * 4 + 4)];
    expect(px(0, 0)).toEqual([...RED, 255]);
    expect(px(1, 0)).toEqual([...BLUE, 255]);
    expect(px(3, 0)).toEqual([0, 0, 0, 0]);
    expect(px(2, 1)).toEqual([...BLUE, 255]);
  });

  it('reports truncated pixel data as corrupt', () => {
    const file = bmp({ width: 100, height: 100, bitsPerPixel: 24, pixels: new Array(1000).fill(0) });
    expect(() => decodeBmp(file)).toThrow(expect.objectContaining({ code: 'corrupt', message: expect.stringMatching(/damaged/) }));
  });

  it('reports embedded JPEG compression as unsupported', () => {
    const file = bmp({ width: 1, height: 1, bitsPerPixel: 24, compression: 4, pixels: [0, 0, 0, 0] });
    expect(() => decodeBmp(file)).toThrow(MediaError);
    expect(() => decodeBmp(file)).toThrow(expect.objectContaining({ code: 'unsupported_format' }));
  });
});
