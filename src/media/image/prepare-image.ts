import { MediaError } from '../../errors.ts';
import type { OutputFormat } from './encode-image.ts';
import { encodeWithinLimit } from './encode-image.ts';
import { withMediaBudget } from '../media-budget.ts';
import { base64Length, MAX_DECODE_PIXELS, SERVICE_MAX_BASE64_CHARS, SERVICE_MAX_PIXELS } from './image-limits.ts';
import { openImage, readFailure, tooLargeToRead } from './open-image.ts';
import type { ImageFormat, SniffedImage } from './sniff-image.ts';
import { sniffImage } from './sniff-image.ts';
import { tiffDataTooShort } from './tiff-strips.ts';

/** The formats the service accepts (service-api.md §8). */
export type ServiceImageMime = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp' | 'image/bmp';

export interface PreparedImage {
  mime: ServiceImageMime;
  data: Buffer;
  /** Size of the picture as it will be seen upright (after EXIF orientation), of one frame if animated. */
  width: number;
  height: number;
  /** False only when `data` is the input, byte for byte. */
  converted: boolean;
  originalFormat: ImageFormat;
}

export interface PrepareImageOptions {
  /** Pixel budget (e.g. to spend fewer tokens); larger images are downscaled. At most, and by default, 8,388,608. */
  maxPixels?: number;
  /** Longest Base64 string allowed for the result. At most, and by default, 50 x 1024 x 1024. */
  maxBase64Bytes?: number;
}

const SUPPORTED = 'JPEG, PNG, GIF, WebP, BMP, HEIC/HEIF, AVIF, TIFF and SVG';

const PASS_THROUGH: Partial<Record<ImageFormat, ServiceImageMime>> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
};

function looksLikeText(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 1024);
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.length < bytes.length ? head.subarray(0, 1020) : head);
  } catch {
    return false;
  }
  return !head.some((b) => b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c);
}

function notAnImage(bytes: Uint8Array): MediaError {
  const what = looksLikeText(bytes) ? 'This file is text, not an image.' : 'This file is not an image Herald can read.';
  return new MediaError(`${what} Supported image formats: ${SUPPORTED}.`, { code: 'unsupported_format' });
}

function limit(name: string, value: number | undefined, cap: number): number {
  if (value === undefined) return cap;
  if (!(value >= 1)) throw new RangeError(`${name} must be at least 1, got ${value}`);
  return Math.min(Math.floor(value), cap);
}

/** The largest size with the same aspect ratio whose pixel count is within `maxPixels`. */
function fitWithin(width: number, height: number, maxPixels: number): { width: number; height: number } {
  if (width * height <= maxPixels) return { width, height };
  const scale = Math.sqrt(maxPixels / (width * height));
  let w = Math.max(1, Math.floor(width * scale));
  let h = Math.max(1, Math.floor(height * scale));
  if (w * h > maxPixels) {
    if (w >= h) w = Math.floor(maxPixels / h);
    else h = Math.floor(maxPixels / w);
  }
  return { width: w, height: h };
}

function outputFormat(format: ImageFormat, hasAlpha: boolean): OutputFormat {
  switch (format) {
    case 'jpeg':
    case 'png':
    case 'gif':
    case 'webp':
      return format;
    case 'heic':
    case 'heif':
    case 'avif':
      return hasAlpha ? 'png' : 'jpeg';
    case 'bmp':
    case 'tiff':
    case 'svg':
      return 'png';
  }
}

/**
 * Refuses, before anything is decoded, an image whose header declares more pixels than Herald decodes, or (a
 * TIFF) more than its data could hold. A GIF's logical screen is not decoded, only its frames: a screen that
 * differs from them is corrected by re-encoding instead. An SVG is drawn at a size within the budget whatever
 * it declares; its drawing time is bounded instead (open-image.ts).
 */
function checkDeclaredSize(sniffed: SniffedImage, bytes: Uint8Array): void {
  const { format, width, height } = sniffed;
  if (format === 'tiff' && tiffDataTooShort(bytes)) {
    const declared = width === undefined ? 'more pixels' : `${width}×${height} pixels`;
    throw new MediaError(`The TIFF image is damaged or incomplete: it declares ${declared} but holds far less data.`, { code: 'corrupt' });
  }
  if (format !== 'gif' && format !== 'svg' && width !== undefined && height !== undefined && width * height > MAX_DECODE_PIXELS) {
    throw tooLargeToRead(format, width, height);
  }
}

/** Share of the media budget an image takes while it is decoded: its declared pixels, or all when unknown. */
function decodeWeight(sniffed: SniffedImage, maxPixels: number): number {
  const { format, width, height } = sniffed;
  if (format === 'svg') return maxPixels;
  if (format === 'gif' || width === undefined || height === undefined) return MAX_DECODE_PIXELS;
  return width * height;
}

/**
 * Turns a user's image file into one the service accepts: a JPEG, PNG, GIF, WebP or BMP within the pixel
 * budget and the Base64 limit passes through untouched; anything else is turned upright, downscaled
 * (keeping its aspect ratio) and re-encoded, in its own format where possible (BMP becomes PNG), and
 * HEIC/HEIF, AVIF, TIFF and SVG become JPEG or PNG. Throws MediaError (empty, unsupported_format, corrupt,
 * too_large) with a message fit for the user.
 */
export async function prepareImage(bytes: Uint8Array, opts: PrepareImageOptions = {}): Promise<PreparedImage> {
  const maxPixels = limit('maxPixels', opts.maxPixels, SERVICE_MAX_PIXELS);
  const maxBase64 = limit('maxBase64Bytes', opts.maxBase64Bytes, SERVICE_MAX_BASE64_CHARS);
  if (bytes.length === 0) throw new MediaError('The image file is empty.', { code: 'empty' });
  const sniffed = sniffImage(bytes);
  if (!sniffed) throw notAnImage(bytes);
  checkDeclaredSize(sniffed, bytes);
  return withMediaBudget(decodeWeight(sniffed, maxPixels), () => convert(Buffer.from(bytes), sniffed, maxPixels, maxBase64));
}

async function convert(input: Buffer, sniffed: SniffedImage, maxPixels: number, maxBase64: number): Promise<PreparedImage> {
  const { format } = sniffed;
  const opened = await openImage(input, sniffed, maxPixels);
  const { source } = opened;
  const size = fitWithin(source.width, source.height, maxPixels);
  const passMime = PASS_THROUGH[format];
  // The service reads the header's size: one that disagrees with the pixels (a GIF's screen) is re-encoded.
  const headerAgrees = sniffed.width === undefined || (sniffed.width === source.width && sniffed.height === source.height);
  try {
    if (
      passMime &&
      headerAgrees &&
      !opened.reoriented &&
      size.width === source.width &&
      size.height === source.height &&
      base64Length(input.length) <= maxBase64
    ) {
      await opened.validate();
      return { mime: passMime, data: input, ...size, converted: false, originalFormat: format };
    }
    const target = outputFormat(format, PASS_THROUGH[format] ? false : await opened.hasAlpha());
    const encoded = await encodeWithinLimit(source, size, target, maxBase64);
    return {
      mime: `image/${encoded.format}`,
      data: encoded.data,
      width: encoded.width,
      height: encoded.height,
      converted: true,
      originalFormat: format,
    };
  } catch (cause) {
    throw readFailure(format, cause);
  }
}
