import { setImmediate as nextTurn } from 'node:timers/promises';
import type { PDFPageProxy } from 'unpdf/pdfjs';
import { loadPackage } from '../../load-package.ts';

/** One scanned page's largest picture, as 8-bit grey, RGB or RGBA rows. */
export interface PdfPagePixels {
  page: number;
  width: number;
  height: number;
  channels: 1 | 3 | 4;
  data: Uint8Array;
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
 * The pictures of a PDF without a text layer, for the first `maxPages` pages the largest image each draws. pdf.js
 * leaves out any image over `maxImagePixels` before decoding it (`oversized` counts them), and any it cannot
 * decode. Runs on a media worker (pdf-page-images.ts), whose console it takes over: pdf.js decodes on the thread
 * that calls it.
 */
export async function decodePdfPageImages(
  bytes: Uint8Array,
  maxPages: number,
  maxImagePixels: number,
): Promise<{ pages: number; images: PdfPagePixels[]; oversized: number }> {
  const { getDocumentProxy, getResolvedPDFJS } = await loadPackage('unpdf', () => import('unpdf'));
  const { OPS } = await getResolvedPDFJS();
  // pdf.js says only in a warning on the console that it left out an image over maxImageSize; the worker's
  // console is its own, so its warnings are counted here.
  let oversized = 0;
  console.warn = (...args: unknown[]) => {
    if (String(args[0]).includes('exceeded maximum allowed size')) oversized += 1;
  };
  const pdf = await getDocumentProxy(bytes, { verbosity: 1, maxImageSize: maxImagePixels, canvasMaxAreaInBytes: maxImagePixels * 4 });
  const images: PdfPagePixels[] = [];
  try {
    for (let number = 1; number <= Math.min(pdf.numPages, maxPages); number += 1) {
      await nextTurn();
      const page = await pdf.getPage(number);
      const image = await largestImage(page, OPS.paintImageXObject, OPS.paintInlineImageXObject);
      page.cleanup();
      if (image) images.push({ page: number, ...pixels(image) });
    }
  } finally {
    await pdf.loadingTask.destroy();
  }
  return { pages: pdf.numPages, images, oversized };
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
  return (
    typeof width === 'number' &&
    typeof height === 'number' &&
    width > 0 &&
    height > 0 &&
    data !== undefined &&
    (kind === GRAYSCALE_1BPP || kind === RGB_24BPP || kind === RGBA_32BPP)
  );
}

function pixels(image: DecodedImage): Omit<PdfPagePixels, 'page'> {
  const { width, height } = image;
  if (image.kind === GRAYSCALE_1BPP) return { width, height, channels: 1, data: unpackBits(image) };
  const channels = image.kind === RGBA_32BPP ? 4 : 3;
  return { width, height, channels, data: new Uint8Array(image.data.buffer, image.data.byteOffset, width * height * channels).slice() };
}

/** 1-bit rows (each padded to a whole byte, a set bit is white as pdf.js gives them) as 8-bit grey. */
function unpackBits(image: DecodedImage): Uint8Array {
  const { width, height, data } = image;
  const rowBytes = Math.ceil(width / 8);
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const bit = (data[y * rowBytes + (x >> 3)]! >> (7 - (x & 7))) & 1;
      out[y * width + x] = bit ? 255 : 0;
    }
  }
  return out;
}
