import type sharp from 'sharp';
import type { Sharp, SharpOptions } from 'sharp';
import { MediaError, PackageLoadError } from '../../errors.ts';
import { loadPackage } from '../../load-package.ts';
import { runMediaTask } from '../media-worker.ts';
import { decodeHeic } from './decode-heic.ts';
import type { ImageSource } from './encode-image.ts';
import { MAX_DECODE_PIXELS } from './image-limits.ts';
import { rawImageFrom, type RawImage } from './raw-image.ts';
import { renderSvg } from './render-svg.ts';
import type { ImageFormat, SniffedImage } from './sniff-image.ts';

export const FORMAT_NAME: Record<ImageFormat, string> = {
  jpeg: 'JPEG',
  png: 'PNG',
  gif: 'GIF',
  webp: 'WebP',
  bmp: 'BMP',
  heic: 'HEIC',
  heif: 'HEIF',
  avif: 'AVIF',
  tiff: 'TIFF',
  svg: 'SVG',
};

export interface OpenedImage {
  source: ImageSource;
  /** The stored pixels must be turned or mirrored (EXIF orientation) to stand upright. */
  reoriented: boolean;
  /** Decodes every pixel, so that damaged or truncated data is caught before the bytes are sent on. */
  validate(): Promise<void>;
  /** Whether any pixel is not fully opaque. */
  hasAlpha(): Promise<boolean>;
}

/** Longest sharp may work on one image (libvips checks it between tiles); a worker running sharp cannot be ended. */
const SHARP_TIMEOUT_SECONDS = 20;
/** Longest the BMP decoder may run on its worker thread. */
const BMP_TIMEOUT_MS = 20_000;

/** The refusal of an image whose declared size is over the decode budget, before anything is allocated for it. */
export function tooLargeToRead(format: ImageFormat, width: number, height: number): MediaError {
  return new MediaError(
    `The ${FORMAT_NAME[format]} image is too large to read (${width}×${height}); Herald reads images up to ${MAX_DECODE_PIXELS / 1e6} megapixels.`,
    { code: 'too_large' },
  );
}

export function tooSlowToRead(format: ImageFormat): MediaError {
  return new MediaError(`The ${FORMAT_NAME[format]} image is too complex to read in time; Herald gave up.`, { code: 'too_large' });
}

/** The MediaError for a failure while reading an image's pixels. */
export function readFailure(format: ImageFormat, cause: unknown): MediaError {
  if (cause instanceof MediaError) return cause;
  if (cause instanceof Error && /pixel limit/i.test(cause.message)) {
    return new MediaError(`The ${FORMAT_NAME[format]} image has too many pixels to read (at most ${MAX_DECODE_PIXELS / 1e6} megapixels).`, {
      code: 'too_large',
      cause,
    });
  }
  if (cause instanceof Error && /^timeout/i.test(cause.message)) return tooSlowToRead(format);
  return new MediaError(`The ${FORMAT_NAME[format]} image is damaged or incomplete and could not be read.`, {
    code: 'corrupt',
    cause,
  });
}

type SharpFactory = typeof sharp;

/** sharp and its libvips (tens of MiB resident) load with the first image, not at start-up. */
export async function loadSharp(): Promise<SharpFactory> {
  return (await loadPackage('sharp', () => import('sharp'))).default;
}

function fromRaw(sharp: SharpFactory, raw: RawImage): OpenedImage {
  const { width, height, channels } = raw;
  return {
    source: {
      open: () => sharp(raw.data, { raw: { width, height, channels } }).timeout({ seconds: SHARP_TIMEOUT_SECONDS }),
      width,
      height,
      sixteenBit: false,
    },
    reoriented: false,
    validate: async () => {},
    hasAlpha: async () => channels === 4,
  };
}

/** Renders an SVG whose stated size is above the budget at a lower density, instead of huge then shrunk. */
function svgDensity(sniffed: SniffedImage, maxPixels: number): number {
  const { width, height } = sniffed;
  if (width === undefined || height === undefined || width * height <= maxPixels) return 72;
  return Math.max(1, 72 * Math.sqrt(maxPixels / (width * height)));
}

async function fromSharp(sharp: SharpFactory, input: Buffer, sniffed: SniffedImage): Promise<OpenedImage> {
  const animated = sniffed.format === 'gif' || sniffed.format === 'webp';
  const options: SharpOptions = { animated, failOn: 'truncated', limitInputPixels: MAX_DECODE_PIXELS };
  const open = (): Sharp => sharp(input, options).autoOrient().timeout({ seconds: SHARP_TIMEOUT_SECONDS });
  const meta = await sharp(input, options).metadata();
  const sixteenBit = meta.depth === 'ushort' ? (meta.space === 'grey16' ? 'grey' : 'rgb') : false;
  return {
    source: {
      open,
      width: meta.autoOrient.width,
      height: animated && meta.pageHeight ? meta.pageHeight : meta.autoOrient.height,
      sixteenBit,
    },
    reoriented: (meta.orientation ?? 1) !== 1,
    validate: async () => {
      await open().raw().toBuffer();
    },
    hasAlpha: async () => meta.hasAlpha && !(await open().stats()).isOpaque,
  };
}

async function decodeBmpOffThread(input: Buffer): Promise<RawImage> {
  return rawImageFrom(await runMediaTask({ kind: 'bmp', bytes: input }, BMP_TIMEOUT_MS, () => tooSlowToRead('bmp')));
}

/**
 * Opens an image of a sniffed format with the decoder that can read it. An SVG is rendered (to a PNG, at most
 * `maxPixels`) in a child process that is killed when it runs too long: librsvg cannot be interrupted within a
 * filter, and a filter can take minutes.
 */
export async function openImage(input: Buffer, sniffed: SniffedImage, maxPixels: number): Promise<OpenedImage> {
  const { format } = sniffed;
  const sharp = await loadSharp();
  try {
    if (format === 'bmp') return fromRaw(sharp, await decodeBmpOffThread(input));
    if (format === 'svg') {
      const png = await renderSvg(input, svgDensity(sniffed, maxPixels), () => tooSlowToRead('svg'));
      return await fromSharp(sharp, png, { format: 'png', mime: 'image/png' });
    }
    if (format !== 'heic' && format !== 'heif') return await fromSharp(sharp, input, sniffed);
    // A file libvips cannot even parse is damaged; one it parses but cannot decode is HEVC-coded.
    const opened = await fromSharp(sharp, input, sniffed);
    try {
      await opened.validate();
      return { ...opened, validate: async () => {} };
    } catch {
      return fromRaw(sharp, await decodeHeic(input));
    }
  } catch (cause) {
    // A decoder that cannot be loaded is the installation's fault, not a damaged image.
    if (cause instanceof PackageLoadError) throw cause;
    throw readFailure(format, cause);
  }
}
