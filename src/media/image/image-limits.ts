/** The service's image limits (service-api.md §8, ERRATA 5). */

/** Largest pixel count the service's vision encoder takes; larger images are downscaled by it anyway. */
export const SERVICE_MAX_PIXELS = 8_388_608;

/** Smallest pixel count the vision encoder works at; smaller images are upscaled by it. */
export const SERVICE_MIN_PIXELS = 8192;

/** "50 MB" of Base64, counted as 50 x 1024 x 1024 characters of the encoded string. */
export const SERVICE_MAX_BASE64_CHARS = 50 * 1024 * 1024;

/** Length of the padded standard Base64 encoding of `byteLength` bytes. */
export function base64Length(byteLength: number): number {
  return 4 * Math.ceil(byteLength / 3);
}

/**
 * Largest picture Herald decodes at all, from the memory goal: with about 190 MB resident when idle and at most
 * 600 MB at peak, one decode of 100 megapixels (400 MB as RGBA) at a time. Checked against every size a file
 * declares before anything is allocated for it.
 */
export const MAX_DECODE_PIXELS = 100_000_000;
