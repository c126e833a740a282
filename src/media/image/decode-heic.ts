import decodeHeicFile from 'heic-decode';
import type { RawImage } from './raw-image.ts';
import { dropOpaqueAlpha } from './raw-image.ts';

/**
 * Decodes the primary image of an HEVC-coded HEIC/HEIF file with libheif compiled to WebAssembly, for when
 * sharp's prebuilt libvips (which carries no HEVC decoder) cannot.
 */
export async function decodeHeic(bytes: Uint8Array): Promise<RawImage> {
  const { width, height, data } = await decodeHeicFile({ buffer: bytes });
  return dropOpaqueAlpha({ data: Buffer.from(data.buffer, data.byteOffset, data.byteLength), width, height, channels: 4 });
}
