import type { Sharp } from 'sharp';
import { MediaError } from '../../errors.ts';
import { base64Length } from './image-limits.ts';

export type OutputFormat = 'jpeg' | 'png' | 'gif' | 'webp';

/** An image ready to be re-encoded: `open()` gives a fresh pipeline of the upright picture (all frames). */
export interface ImageSource {
  open(): Sharp;
  /** Upright size of one frame. */
  width: number;
  height: number;
  /** 16 bits per sample; reduced to 8 on output, which is all the service's decoders need. */
  sixteenBit: 'rgb' | 'grey' | false;
}

export interface EncodedImage {
  data: Buffer;
  format: OutputFormat;
  width: number;
  height: number;
}

interface Encoding {
  format: OutputFormat;
  quality?: number;
}

/** What to try, in order, at one size. A PNG that will not fit becomes a JPEG rather than a smaller PNG. */
function encodingsFor(format: OutputFormat): Encoding[] {
  switch (format) {
    case 'jpeg':
    case 'webp':
      return [90, 75, 60].map((quality) => ({ format, quality }));
    case 'png':
      return [{ format: 'png' }, { format: 'jpeg', quality: 85 }];
    case 'gif':
      return [{ format: 'gif' }];
  }
}

async function encode(source: ImageSource, width: number, height: number, encoding: Encoding): Promise<EncodedImage> {
  let pipeline = source.open();
  if (width !== source.width || height !== source.height) {
    pipeline = pipeline.resize(width, height, { fit: 'fill' });
  }
  if (source.sixteenBit) pipeline = pipeline.toColourspace(source.sixteenBit === 'grey' ? 'b-w' : 'srgb');
  switch (encoding.format) {
    case 'jpeg':
      pipeline = pipeline.flatten({ background: '#ffffff' }).jpeg({ quality: encoding.quality });
      break;
    case 'webp':
      pipeline = pipeline.webp({ quality: encoding.quality });
      break;
    case 'png':
      pipeline = pipeline.png({ compressionLevel: 9 });
      break;
    case 'gif':
      pipeline = pipeline.gif();
      break;
  }
  const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
  return { data, format: encoding.format, width: info.width, height: info.pageHeight ?? info.height };
}

function describeSize(chars: number): string {
  const mib = chars / (1024 * 1024);
  return mib >= 1 ? `${Math.round(mib * 10) / 10} MB` : `${Math.ceil(chars / 1024)} KB`;
}

const MAX_ROUNDS = 8;

/**
 * Encodes `source` at `width` x `height` as `format`, lowering quality and then size until its Base64 form
 * is at most `maxBase64Chars` long; MediaError too_large when even a tiny version does not fit.
 */
export async function encodeWithinLimit(
  source: ImageSource,
  size: { width: number; height: number },
  format: OutputFormat,
  maxBase64Chars: number,
): Promise<EncodedImage> {
  let { width, height } = size;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let smallest = Infinity;
    for (const encoding of encodingsFor(format)) {
      const encoded = await encode(source, width, height, encoding);
      if (base64Length(encoded.data.length) <= maxBase64Chars) return encoded;
      smallest = Math.min(smallest, base64Length(encoded.data.length));
    }
    if (width === 1 && height === 1) break;
    // Encoded size grows about with the pixel count: shrink the area by the overshoot, with a margin.
    const shrink = Math.min(0.8, Math.sqrt(maxBase64Chars / smallest) * 0.9);
    width = Math.max(1, Math.floor(width * shrink));
    height = Math.max(1, Math.floor(height * shrink));
  }
  throw new MediaError(`The image is too large to send: even shrunk and compressed it is over the ${describeSize(maxBase64Chars)} limit.`, {
    code: 'too_large',
  });
}
