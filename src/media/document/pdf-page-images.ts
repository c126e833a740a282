import { setImmediate as nextTurn } from 'node:timers/promises';
import type { PDFPageProxy } from 'unpdf/pdfjs';
import { loadPackage } from '../../load-package.ts';
import { loadSharp } from '../image/open-image.ts';

/** One scanned page: the largest picture drawn on it, as a JPEG. */
export interface PdfPageImage {
  page: number;
  width: number;
  height: number;
  jpeg: Buffer;
}

/** pdf.js's decoded image kinds (ImageKind): packed 1-bit grey, RGB and RGBA, 8 bits a sample. */
const GRAYSCALE_1BPP = 1;
const RGB_24BPP = 2;
const RGBA_32BPP = 3;

interface DecodedImage {
  width: number;
  height: number;
  kind: number;
  data: Uint8Array | Uint8ClampedArray;
}

/**
 * The pictures of a PDF without a text layer (a scan: each page one image of the paper), for the vision model to
 * read instead: for each of the first `maxPages` pages, the largest image it draws. Pages without an image, and
 * images pdf.js cannot decode, are left out.
 */
export async function pdfPageImages(bytes: Uint8Array, maxPages: number): Promise<{ pages: number; images: PdfPageImage[] }> {
  const { getDocumentProxy, getResolvedPDFJS } = await loadPackage('unpdf', () => import('unpdf'));
  const { OPS } = await getResolvedPDFJS();
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  const images: PdfPageImage[] = [];
  try {
    for (let number = 1; number <= Math.min(pdf.numPages, maxPages); number += 1) {
      await nextTurn();
      const page = await pdf.getPage(number);
      const image = await largestImage(page, OPS.paintImageXObject, OPS.paintInlineImageXObject);
      page.cleanup();
      if (image) images.push({ page: number, width: image.width, height: image.height, jpeg: await toJpeg(image) });
    }
  } finally {
    await pdf.loadingTask.destroy();
  }
  return { pages: pdf.numPages, images };
}

async function largestImage(page: PDFPageProxy, paintXObject: number, paintInline: number): Promise<DecodedImage | undefined> {
  const operators = await page.getOperatorList();
  let largest: DecodedImage | undefined;
  for (let i = 0; i < operators.fnArray.length; i += 1) {
    const op = operators.fnArray[i];
    const args = operators.argsArray[i] as unknown[];
    let image: unknown;
    if (op === paintXObject) image = await pageObject(page, String(args[0]));
    else if (op === paintInline) image = args[0];
    else continue;
    if (isDecoded(image) && (!largest || image.width * image.height > largest.width * largest.height)) largest = image;
  }
  return largest;
}

/** An image object of the page, once pdf.js has decoded it (undefined when it could not). */
function pageObject(page: PDFPageProxy, name: string): Promise<unknown> {
  return new Promise((resolve) => {
    try {
      page.objs.get(name, resolve);
    } catch {
      resolve(undefined);
    }
  });
}

function isDecoded(image: unknown): image is DecodedImage {
  if (typeof image !== 'object' || image === null) return false;
  const { width, height, kind, data } = image as Partial<DecodedImage>;
  return typeof width === 'number' && typeof height === 'number' && width > 0 && height > 0 && data !== undefined &&
    (kind === GRAYSCALE_1BPP || kind === RGB_24BPP || kind === RGBA_32BPP);
}

async function toJpeg(image: DecodedImage): Promise<Buffer> {
  const sharp = await loadSharp();
  const { width, height } = image;
  if (image.kind === GRAYSCALE_1BPP) {
    return sharp(unpackBits(image), { raw: { width, height, channels: 1 } }).jpeg({ quality: 90 }).toBuffer();
  }
  const channels = image.kind === RGBA_32BPP ? 4 : 3;
  const data = Buffer.from(image.data.buffer, image.data.byteOffset, width * height * channels);
  return sharp(data, { raw: { width, height, channels } }).flatten({ background: '#ffffff' }).jpeg({ quality: 90 }).toBuffer();
}

/** 1-bit rows (each padded to a whole byte, a set bit is white as pdf.js gives them) as 8-bit grey. */
function unpackBits(image: DecodedImage): Buffer {
  const { width, height, data } = image;
  const rowBytes = Math.ceil(width / 8);
  const out = Buffer.alloc(width * height);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const bit = (data[y * rowBytes + (x >> 3)]! >> (7 - (x & 7))) & 1;
      out[y * width + x] = bit ? 255 : 0;
    }
  }
  return out;
}
