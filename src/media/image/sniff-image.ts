import { readBmpHeader } from './bmp-decode.ts';
import { readHeifInfo } from './heif-info.ts';

/** Image formats Herald recognises from their bytes. */
export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'bmp' | 'heic' | 'heif' | 'avif' | 'tiff' | 'svg';

const IMAGE_MIME: Record<ImageFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  heic: 'image/heic',
  heif: 'image/heif',
  avif: 'image/avif',
  tiff: 'image/tiff',
  svg: 'image/svg+xml',
};

export interface SniffedImage {
  format: ImageFormat;
  mime: string;
  /** Size as stored in the header, before any EXIF/HEIF orientation; absent when the header does not say. */
  width?: number;
  height?: number;
}

const AVIF_BRANDS = new Set(['avif', 'avis']);
const HEIC_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'hevm', 'hevs']);
const HEIF_BRANDS = new Set(['mif1', 'msf1', 'mif2', 'miaf']);

function startsWith(bytes: Uint8Array, signature: readonly number[], at = 0): boolean {
  if (bytes.length < at + signature.length) return false;
  return signature.every((b, i) => bytes[at + i] === b);
}

function sized(format: ImageFormat, width?: number, height?: number): SniffedImage {
  const found: SniffedImage = { format, mime: IMAGE_MIME[format] };
  if (width !== undefined && height !== undefined && width > 0 && height > 0) {
    found.width = width;
    found.height = height;
  }
  return found;
}

function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function sniffJpeg(bytes: Uint8Array, view: DataView): SniffedImage {
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) break;
    const marker = bytes[at + 1];
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) break;
    const length = view.getUint16(at + 2);
    if (isStartOfFrame(marker) && at + 9 <= bytes.length) {
      return sized('jpeg', view.getUint16(at + 7), view.getUint16(at + 5));
    }
    at += 2 + length;
  }
  return sized('jpeg');
}

function sniffWebp(bytes: Uint8Array, view: DataView): SniffedImage {
  const chunk = String.fromCharCode(...bytes.subarray(12, 16));
  if (chunk === 'VP8 ' && bytes.length >= 30) {
    return sized('webp', view.getUint16(26, true) & 0x3fff, view.getUint16(28, true) & 0x3fff);
  }
  if (chunk === 'VP8L' && bytes.length >= 25) {
    const bits = view.getUint32(21, true);
    return sized('webp', (bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8X' && bytes.length >= 30) {
    const width = (bytes[24] | (bytes[25] << 8) | (bytes[26] << 16)) + 1;
    const height = (bytes[27] | (bytes[28] << 8) | (bytes[29] << 16)) + 1;
    return sized('webp', width, height);
  }
  return sized('webp');
}

function sniffTiff(bytes: Uint8Array, view: DataView): SniffedImage {
  const little = bytes[0] === 0x49;
  if (bytes.length < 8 || view.getUint16(2, little) !== 42) return sized('tiff');
  const ifd = view.getUint32(4, little);
  if (ifd + 2 > bytes.length) return sized('tiff');
  const entries = view.getUint16(ifd, little);
  let width: number | undefined;
  let height: number | undefined;
  for (let i = 0; i < entries; i++) {
    const at = ifd + 2 + i * 12;
    if (at + 12 > bytes.length) break;
    const tag = view.getUint16(at, little);
    if (tag !== 256 && tag !== 257) continue;
    const type = view.getUint16(at + 2, little);
    const value = type === 3 ? view.getUint16(at + 8, little) : view.getUint32(at + 8, little);
    if (tag === 256) width = value;
    else height = value;
  }
  return sized('tiff', width, height);
}

function sniffIsoBmff(bytes: Uint8Array): SniffedImage | undefined {
  const info = readHeifInfo(bytes);
  if (!info) return undefined;
  const [major] = info.brands;
  let format: ImageFormat | undefined;
  if (AVIF_BRANDS.has(major)) format = 'avif';
  else if (HEIC_BRANDS.has(major)) format = 'heic';
  else if (info.brands.some((b) => AVIF_BRANDS.has(b))) format = 'avif';
  else if (info.brands.some((b) => HEIC_BRANDS.has(b))) format = 'heic';
  else if (info.brands.some((b) => HEIF_BRANDS.has(b))) format = 'heif';
  return format && sized(format, info.width, info.height);
}

/** Skips the XML declaration, comments, processing instructions and DOCTYPE in front of the root element. */
function skipProlog(text: string): string {
  let rest = text.replace(/^\uFEFF/, '').trimStart();
  for (;;) {
    const prolog = /^(<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^[>]*(\[[\s\S]*?\])?\s*>)/i.exec(rest);
    if (!prolog) return rest;
    rest = rest.slice(prolog[0].length).trimStart();
  }
}

function svgLength(value: string | undefined): number | undefined {
  const match = value && /^\s*([\d.]+)\s*(px)?\s*$/.exec(value);
  return match ? Number(match[1]) : undefined;
}

function sniffSvg(bytes: Uint8Array): SniffedImage | undefined {
  const head = bytes.subarray(0, 16384);
  if (head.includes(0)) return undefined;
  const root = skipProlog(new TextDecoder('utf-8').decode(head));
  const tag = /^<(?:[\w-]+:)?svg[\s>/][^>]*/.exec(root);
  if (!tag) return undefined;
  const attributes = new Map<string, string>();
  for (const [, name, , value] of tag[0].matchAll(/\s([\w:-]+)\s*=\s*(["'])(.*?)\2/g)) {
    attributes.set(name, value);
  }
  let width = svgLength(attributes.get('width'));
  let height = svgLength(attributes.get('height'));
  const viewBox = attributes
    .get('viewBox')
    ?.trim()
    .split(/[\s,]+/)
    .map(Number);
  if ((width === undefined || height === undefined) && viewBox?.length === 4) {
    width ??= viewBox[2];
    height ??= viewBox[3];
  }
  return sized('svg', width && Math.round(width), height && Math.round(height));
}

/**
 * The real format of an image from its first bytes (names and declared MIME types are not trusted), with
 * its stored size where the header gives it cheaply. Undefined when the bytes are no format Herald knows.
 */
export function sniffImage(bytes: Uint8Array): SniffedImage | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return sniffJpeg(bytes, view);
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    return bytes.length >= 24 ? sized('png', view.getUint32(16), view.getUint32(20)) : sized('png');
  }
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38]) && (bytes[4] === 0x37 || bytes[4] === 0x39)) {
    return bytes.length >= 10 ? sized('gif', view.getUint16(6, true), view.getUint16(8, true)) : sized('gif');
  }
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) {
    return sniffWebp(bytes, view);
  }
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) {
    return sniffTiff(bytes, view);
  }
  if (startsWith(bytes, [0x49, 0x49, 0x2b, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2b])) {
    return sized('tiff');
  }
  const bmp = readBmpHeader(bytes);
  if (bmp) return sized('bmp', bmp.width, bmp.height);
  if (startsWith(bytes, [0x66, 0x74, 0x79, 0x70], 4)) return sniffIsoBmff(bytes);
  return sniffSvg(bytes);
}
