import { MediaError } from '../../errors.ts';
import { MAX_DECODE_PIXELS } from './image-limits.ts';
import type { RawImage } from './raw-image.ts';
import { dropOpaqueAlpha } from './raw-image.ts';

/**
 * Windows BMP reading. sharp's prebuilt libvips has no BMP loader, so BMPs that must be downscaled or
 * re-encoded are decoded here: BI_RGB at 1/4/8/16/24/32 bits, RLE8, RLE4 and (alpha) bit fields.
 */

const BI_RGB = 0;
const BI_RLE8 = 1;
const BI_RLE4 = 2;
const BI_BITFIELDS = 3;
const BI_ALPHABITFIELDS = 6;

const CORE_HEADER = 12;
const INFO_HEADERS = new Set([40, 52, 56, 64, 108, 124]);

export interface BmpHeader {
  width: number;
  height: number;
  topDown: boolean;
  bitsPerPixel: number;
  compression: number;
  dataOffset: number;
  headerSize: number;
  colorsUsed: number;
}

/** The header of a BMP file, or undefined when the bytes are not a plausible BMP. */
export function readBmpHeader(bytes: Uint8Array): BmpHeader | undefined {
  if (bytes.length < 26 || bytes[0] !== 0x42 || bytes[1] !== 0x4d) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dataOffset = view.getUint32(10, true);
  const headerSize = view.getUint32(14, true);
  if (headerSize === CORE_HEADER) {
    const bitsPerPixel = view.getUint16(24, true);
    if (![1, 4, 8, 24].includes(bitsPerPixel)) return undefined;
    return {
      width: view.getUint16(18, true),
      height: view.getUint16(20, true),
      topDown: false,
      bitsPerPixel,
      compression: BI_RGB,
      dataOffset,
      headerSize,
      colorsUsed: 0,
    };
  }
  if (!INFO_HEADERS.has(headerSize) || bytes.length < 54) return undefined;
  const bitsPerPixel = view.getUint16(28, true);
  if (![1, 4, 8, 16, 24, 32].includes(bitsPerPixel)) return undefined;
  const rawHeight = view.getInt32(22, true);
  return {
    width: view.getInt32(18, true),
    height: Math.abs(rawHeight),
    topDown: rawHeight < 0,
    bitsPerPixel,
    compression: view.getUint32(30, true),
    dataOffset,
    headerSize,
    colorsUsed: view.getUint32(46, true),
  };
}

function corrupt(detail: string): MediaError {
  return new MediaError(`The BMP image is damaged or incomplete and could not be read (${detail}).`, {
    code: 'corrupt',
  });
}

interface Channel {
  mask: number;
  shift: number;
  max: number;
}

function channel(mask: number): Channel {
  if (mask === 0) return { mask, shift: 0, max: 0 };
  let shift = 0;
  while (((mask >>> shift) & 1) === 0) shift++;
  return { mask, shift, max: mask >>> shift };
}

function sample(pixel: number, c: Channel): number {
  if (c.max === 0) return 0;
  const value = (pixel & c.mask) >>> c.shift;
  return c.max === 255 ? value : Math.round((value * 255) / c.max);
}

interface Masks {
  red: Channel;
  green: Channel;
  blue: Channel;
  alpha: Channel;
}

function readMasks(view: DataView, header: BmpHeader): Masks {
  const { bitsPerPixel, compression, headerSize } = header;
  const explicit = compression === BI_BITFIELDS || compression === BI_ALPHABITFIELDS;
  if (!explicit) {
    return bitsPerPixel === 16
      ? { red: channel(0x7c00), green: channel(0x03e0), blue: channel(0x001f), alpha: channel(0) }
      : { red: channel(0xff0000), green: channel(0xff00), blue: channel(0xff), alpha: channel(0) };
  }
  // Right after the 40-byte info header, whether they belong to a longer header or follow it.
  const at = 54;
  if (at + 12 > view.byteLength) throw corrupt('colour masks missing');
  const hasAlphaMask = compression === BI_ALPHABITFIELDS || headerSize >= 56;
  return {
    red: channel(view.getUint32(at, true)),
    green: channel(view.getUint32(at + 4, true)),
    blue: channel(view.getUint32(at + 8, true)),
    alpha: channel(hasAlphaMask && at + 16 <= view.byteLength ? view.getUint32(at + 12, true) : 0),
  };
}

function readPalette(bytes: Uint8Array, header: BmpHeader): Uint8Array[] {
  const entrySize = header.headerSize === CORE_HEADER ? 3 : 4;
  const start = 14 + header.headerSize;
  const count = Math.min(header.colorsUsed || 1 << header.bitsPerPixel, 256);
  const palette: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const at = start + i * entrySize;
    if (at + 3 > bytes.length || at + 3 > header.dataOffset) break;
    palette.push(Uint8Array.of(bytes[at + 2], bytes[at + 1], bytes[at]));
  }
  if (palette.length === 0) throw corrupt('colour table missing');
  return palette;
}

function decodeRle(bytes: Uint8Array, header: BmpHeader, palette: Uint8Array[]): RawImage {
  const { width, height } = header;
  const out = Buffer.alloc(width * height * 4);
  const nibbles = header.compression === BI_RLE4;
  let x = 0;
  let row = 0;
  const put = (index: number): void => {
    if (x < width && row < height) {
      const colour = palette[index] ?? palette[0];
      const y = header.topDown ? row : height - 1 - row;
      const o = (y * width + x) * 4;
      out[o] = colour[0];
      out[o + 1] = colour[1];
      out[o + 2] = colour[2];
      out[o + 3] = 255;
    }
    x++;
  };
  let at = header.dataOffset;
  while (at + 1 < bytes.length) {
    const count = bytes[at];
    const value = bytes[at + 1];
    at += 2;
    if (count > 0) {
      for (let i = 0; i < count; i++) put(nibbles ? (i % 2 === 0 ? value >> 4 : value & 15) : value);
    } else if (value === 0) {
      x = 0;
      row++;
    } else if (value === 1) {
      return { data: out, width, height, channels: 4 };
    } else if (value === 2) {
      if (at + 1 >= bytes.length) break;
      x += bytes[at];
      row += bytes[at + 1];
      at += 2;
    } else {
      const length = nibbles ? Math.ceil(value / 2) : value;
      if (at + length > bytes.length) break;
      for (let i = 0; i < value; i++) {
        put(nibbles ? (i % 2 === 0 ? bytes[at + (i >> 1)] >> 4 : bytes[at + (i >> 1)] & 15) : bytes[at + i]);
      }
      at += length + (length % 2);
    }
  }
  // Some writers omit the end-of-bitmap marker; that is harmless once every row is there.
  if (row >= height - 1) return { data: out, width, height, channels: 4 };
  throw corrupt('compressed pixel data ends early');
}

/** Decodes a whole BMP file to RGB, or RGBA when it carries real transparency. */
export function decodeBmp(bytes: Uint8Array): RawImage {
  const header = readBmpHeader(bytes);
  if (!header) throw corrupt('unreadable header');
  const { width, height, bitsPerPixel, compression } = header;
  if (width <= 0 || height === 0) throw corrupt('no pixels');
  if (width * height > MAX_DECODE_PIXELS) {
    throw new MediaError(`The BMP image is too large to read (${width}×${height}).`, { code: 'too_large' });
  }
  // OS/2 2.x headers reuse compression numbers 3 and 4 for Huffman and RLE24, which are not bit fields.
  const os2 = header.headerSize === 64 && compression > BI_RLE4;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const indexed = bitsPerPixel <= 8;
  const palette = indexed ? readPalette(bytes, header) : [];

  if (compression === BI_RLE8 || compression === BI_RLE4) {
    if (bitsPerPixel !== (compression === BI_RLE8 ? 8 : 4)) throw corrupt('compression does not match depth');
    return dropOpaqueAlpha(decodeRle(bytes, header, palette));
  }
  const bitfields = compression === BI_BITFIELDS || compression === BI_ALPHABITFIELDS;
  if (os2 || (compression !== BI_RGB && !(bitfields && (bitsPerPixel === 16 || bitsPerPixel === 32)))) {
    throw new MediaError('This BMP uses a compression Herald cannot read. Please send it as PNG or JPEG.', {
      code: 'unsupported_format',
    });
  }

  const stride = Math.floor((bitsPerPixel * width + 31) / 32) * 4;
  if (header.dataOffset + stride * height > bytes.length) throw corrupt('pixel data ends early');
  const masks = bitsPerPixel === 16 || bitsPerPixel === 32 ? readMasks(view, header) : undefined;
  const out = Buffer.alloc(width * height * 4);
  let anyAlpha = false;
  for (let row = 0; row < height; row++) {
    const line = header.dataOffset + row * stride;
    const y = header.topDown ? row : height - 1 - row;
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      if (indexed) {
        const bitOffset = x * bitsPerPixel;
        const byte = bytes[line + (bitOffset >> 3)];
        const index = (byte >> (8 - bitsPerPixel - (bitOffset & 7))) & ((1 << bitsPerPixel) - 1);
        const colour = palette[index] ?? palette[0];
        out.set(colour, o);
        out[o + 3] = 255;
      } else if (masks) {
        const pixel = bitsPerPixel === 16 ? view.getUint16(line + x * 2, true) : view.getUint32(line + x * 4, true);
        out[o] = sample(pixel, masks.red);
        out[o + 1] = sample(pixel, masks.green);
        out[o + 2] = sample(pixel, masks.blue);
        const alpha = masks.alpha.max === 0 ? 255 : sample(pixel, masks.alpha);
        out[o + 3] = alpha;
        if (alpha !== 0) anyAlpha = true;
      } else {
        const at = line + x * 3;
        out[o] = bytes[at + 2];
        out[o + 1] = bytes[at + 1];
        out[o + 2] = bytes[at];
        out[o + 3] = 255;
      }
    }
  }
  if (masks && masks.alpha.max !== 0 && !anyAlpha) {
    // Writers often leave the alpha bytes zero; an entirely transparent picture is never what they meant.
    for (let i = 3; i < out.length; i += 4) out[i] = 255;
  }
  return dropOpaqueAlpha({ data: out, width, height, channels: 4 });
}
