import { loadPackage } from '../../load-package.ts';
import type { RawImage } from './raw-image.ts';
import { dropOpaqueAlpha } from './raw-image.ts';

/**
 * Decodes the primary image of an HEVC-coded HEIC/HEIF file with libheif compiled to WebAssembly, for when
 * sharp's prebuilt libvips (which carries no HEVC decoder) cannot. Runs on a media worker (decode-heic.ts).
 */
export async function decodeHeicPixels(bytes: Uint8Array): Promise<RawImage> {
  const { default: decodeHeicFile } = await loadPackage('heic-decode', () => import('heic-decode'));
  const { width, height, data } = await decodeHeicFile({ buffer: bytes });
  return dropOpaqueAlpha({ data: Buffer.from(data.buffer, data.byteOffset, data.byteLength), width, height, channels: 4 });
}
