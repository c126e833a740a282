import { MediaError } from '../../errors.ts';
import { loadPackage } from '../../load-package.ts';
import { runMediaTask } from '../media-worker.ts';
import { rawImageFrom, type RawImage } from './raw-image.ts';

const HEIC_TIMEOUT_MS = 60_000;

/**
 * Decodes an HEVC-coded HEIC/HEIF file with libheif on a media worker: its WebAssembly would hold the event
 * loop for the whole decode, and it prints failures on the console. The package is loaded here first, so that a
 * missing one is named as such.
 */
export async function decodeHeic(bytes: Uint8Array): Promise<RawImage> {
  await loadPackage('heic-decode', async () => undefined);
  const image = await runMediaTask(
    { kind: 'heic', bytes },
    HEIC_TIMEOUT_MS,
    () => new MediaError('Decoding this HEIC image took too long; Herald gave up.', { code: 'too_large' }),
  );
  return rawImageFrom(image);
}
