const factor = 32;
const minPixels = 8192;
const maxPixels = 8388608;

/**
 * The spec's image-token estimate (§8), with step 3 multiplying by beta as ERRATA 1 corrects,
 * so an image below the minimum is scaled up to it.
 */
export function imageTokens(width: number, height: number): number {
  let h = Math.round(height / factor) * factor;
  let w = Math.round(width / factor) * factor;
  if (h * w > maxPixels) {
    const beta = Math.sqrt((height * width) / maxPixels);
    h = Math.floor(height / beta / factor) * factor;
    w = Math.floor(width / beta / factor) * factor;
  } else if (h * w < minPixels) {
    const beta = Math.sqrt(minPixels / (height * width));
    h = Math.ceil((height * beta) / factor) * factor;
    w = Math.ceil((width * beta) / factor) * factor;
  }
  return ((h / 16) * (w / 16)) / 4;
}
