import { MediaError } from '../../errors.ts';
import { loadSharp } from '../image/open-image.ts';
import { MEDIA_BUDGET, withMediaBudget } from '../media-budget.ts';
import { runMediaTask } from '../media-worker.ts';

/** One scanned page: the largest picture drawn on it, as a JPEG. */
export interface PdfPageImage {
  page: number;
  width: number;
  height: number;
  jpeg: Buffer;
}

/**
 * Largest page picture decoded: an A3 page scanned at 300 dpi is 17 megapixels, an A4 one at 600 dpi 35; the
 * vision model sees 8 at most. pdf.js holds a picture two or three times over while converting it.
 */
export const SCANNED_PAGE_MAX_PIXELS = 36_000_000;
const PDF_PAGES_TIMEOUT_MS = 60_000;

/**
 * The pictures of a PDF without a text layer (a scan: each page one image of the paper), for the vision model to
 * read instead: for each of the first `maxPages` pages, the largest image it draws. Pages without an image, images
 * over SCANNED_PAGE_MAX_PIXELS (counted in `oversized`) and images pdf.js cannot decode are left out. pdf.js runs
 * on a media worker.
 */
export async function pdfPageImages(bytes: Uint8Array, maxPages: number): Promise<{ pages: number; images: PdfPageImage[]; oversized: number }> {
  return withMediaBudget(MEDIA_BUDGET, async () => {
    const found = await runMediaTask(
      { kind: 'pdf-pages', bytes, maxPages, maxImagePixels: SCANNED_PAGE_MAX_PIXELS },
      PDF_PAGES_TIMEOUT_MS,
      () => new MediaError('Reading the pages of this scanned PDF took too long; Herald gave up.', { code: 'too_large' }),
    );
    const sharp = await loadSharp();
    const images: PdfPageImage[] = [];
    for (const { page, width, height, channels, data } of found.images) {
      const raw = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      const jpeg = await sharp(raw, { raw: { width, height, channels } }).flatten({ background: '#ffffff' }).jpeg({ quality: 90 }).toBuffer();
      images.push({ page, width, height, jpeg });
    }
    return { pages: found.pages, images, oversized: found.oversized };
  });
}
