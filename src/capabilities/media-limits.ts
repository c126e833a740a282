import { MediaError } from '../errors.ts';

/** The service's size limits count Base64 characters, with MB as 1024 × 1024 (ERRATA 5). */
export const MB = 1024 * 1024;
export const IMAGE_BASE64_LIMIT = 50 * MB;
export const AUDIO_BASE64_LIMIT = 10 * MB;

export function base64Length(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

function megabytes(chars: number): string {
  return (chars / MB).toFixed(1);
}

/** Throws a MediaError naming `what` when its Base64 form would exceed `limit` characters. */
export function checkBase64Size(what: string, bytes: number, limit: number): void {
  if (bytes === 0) throw new MediaError(`${what} is empty.`, { code: 'empty' });
  const chars = base64Length(bytes);
  if (chars > limit) {
    throw new MediaError(`${what} is too large for the AI service: ${megabytes(chars)} MB once encoded, the limit is ${limit / MB} MB.`, {
      code: 'too_large',
    });
  }
}

export function dataUrl(mime: string, data: Buffer): string {
  return `data:${mime};base64,${data.toString('base64')}`;
}
