import { SERVICE_MAX_PIXELS, SERVICE_MIN_PIXELS } from './image-limits.ts';

/** patch size 16 x spatial merge size 2 */
const FACTOR = 32;
const PATCH = 16;

/**
 * Python's round(): nearest integer, and at exactly .5 the even one (round(2.5) == 2). The spec's step 1
 * comes from the Qwen2-VL "smart resize", written in Python, so a side of 80 px (80/32 = 2.5) becomes 64,
 * not 96 as Math.round would give.
 */
function roundHalfToEven(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/**
 * Estimated image tokens for an image of `width` x `height` pixels, by the four steps of service-api.md §8
 * with ERRATA 1 (step 3 multiplies by beta). Floating-point operations run in the same order as the
 * reference implementation, so the results match it bit for bit. The service's reported usage is
 * authoritative. Sides are the pixels the service will see, i.e. after EXIF orientation.
 */
export function estimateImageTokens(width: number, height: number): number {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) {
    throw new RangeError(`image size must be positive integers, got ${width}x${height}`);
  }
  let hBar = roundHalfToEven(height / FACTOR) * FACTOR;
  let wBar = roundHalfToEven(width / FACTOR) * FACTOR;
  if (hBar * wBar > SERVICE_MAX_PIXELS) {
    const beta = Math.sqrt((height * width) / SERVICE_MAX_PIXELS);
    hBar = Math.floor(height / beta / FACTOR) * FACTOR;
    wBar = Math.floor(width / beta / FACTOR) * FACTOR;
  } else if (hBar * wBar < SERVICE_MIN_PIXELS) {
    const beta = Math.sqrt(SERVICE_MIN_PIXELS / (height * width));
    hBar = Math.ceil((height * beta) / FACTOR) * FACTOR;
    wBar = Math.ceil((width * beta) / FACTOR) * FACTOR;
  }
  return ((hBar / PATCH) * (wBar / PATCH)) / 4;
}
