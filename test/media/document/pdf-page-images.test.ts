import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { pdfPageImages } from '../../../src/media/document/pdf-page-images.ts';
import { pdfFile, scannedPdf } from '../../fixtures/documents/pdf-file.ts';

/** A white page with a black bar across its top half, as a JPEG. */
async function paper(width: number, height: number): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/><rect x="0" y="0" width="${width}" height="${height / 2}" fill="#000"/></svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 95 }).toBuffer();
}

/** Mean brightness (0-255) of the top and the bottom half of a JPEG. */
async function halves(jpeg: Buffer): Promise<[number, number]> {
  const { data, info } = await sharp(jpeg).greyscale().raw().toBuffer({ resolveWithObject: true });
  const half = (info.height >> 1) * info.width;
  const mean = (from: number, to: number) => data.subarray(from, to).reduce((sum, v) => sum + v, 0) / (to - from);
  return [mean(0, half), mean(half, data.length)];
}

describe('pdfPageImages: the pages of a scanned PDF as pictures', () => {
  it('gives each scanned page as a JPEG of the picture on it, the first pages only', async () => {
    const pages = await Promise.all([paper(400, 300), paper(320, 240), paper(200, 100)]);
    const pdf = scannedPdf([
      { jpeg: pages[0]!, width: 400, height: 300 },
      { jpeg: pages[1]!, width: 320, height: 240 },
      { jpeg: pages[2]!, width: 200, height: 100 },
    ]);
    const { pages: count, images } = await pdfPageImages(pdf, 2);
    expect(count).toBe(3);
    expect(images.map(({ page, width, height }) => ({ page, width, height }))).toEqual([
      { page: 1, width: 400, height: 300 },
      { page: 2, width: 320, height: 240 },
    ]);
    const [top, bottom] = await halves(images[0]!.jpeg);
    expect(top).toBeLessThan(30);
    expect(bottom).toBeGreaterThan(225);
  });

  it('reads a 1-bit fax-like scan, black where the bits say so', async () => {
    const width = 64;
    const height = 32;
    // Top half black (bits 0), bottom half white (bits 1), as DeviceGray 1-bit samples.
    const rows = Buffer.concat(Array.from({ length: height }, (_, y) => Buffer.alloc(width / 8, y < height / 2 ? 0x00 : 0xff)));
    const { images } = await pdfPageImages(scannedPdf([{ bilevel: rows, width, height }]), 5);
    expect(images).toHaveLength(1);
    const [top, bottom] = await halves(images[0]!.jpeg);
    expect(top).toBeLessThan(30);
    expect(bottom).toBeGreaterThan(225);
  });

  it('finds no pictures in a PDF of text pages', async () => {
    const { pages, images } = await pdfPageImages(pdfFile([['just text'], null]), 5);
    expect(pages).toBe(2);
    expect(images).toEqual([]);
  });
});
