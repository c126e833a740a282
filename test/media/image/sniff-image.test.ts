import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sniffImage } from '../../../src/media/image/sniff-image.ts';

const fixture = (name: string): Buffer => readFileSync(join(import.meta.dirname, '../../fixtures/images', name));

describe('sniffImage', () => {
  it.each([
    ['photo-orientation-6.jpg', 'jpeg', 'image/jpeg', 48, 64],
    ['marker.png', 'png', 'image/png', 64, 48],
    ['animated.gif', 'gif', 'image/gif', 64, 48],
    ['marker.webp', 'webp', 'image/webp', 64, 48],
    ['marker.bmp', 'bmp', 'image/bmp', 64, 48],
    ['marker.heic', 'heic', 'image/heic', 64, 48],
    ['marker-irot.heic', 'heic', 'image/heic', 48, 64],
    ['marker.avif', 'avif', 'image/avif', 64, 48],
    ['marker-orientation-8.tif', 'tiff', 'image/tiff', 48, 64],
    ['marker.svg', 'svg', 'image/svg+xml', 64, 48],
    ['huge-5000x4000.png', 'png', 'image/png', 5000, 4000],
  ])('%s is %s with its stored size', (name, format, mime, width, height) => {
    expect(sniffImage(fixture(name))).toEqual({ format, mime, width, height });
  });

  it('recognises nothing in text, empty or random bytes', () => {
    expect(sniffImage(fixture('notes.txt'))).toBeUndefined();
    expect(sniffImage(fixture('empty.jpg'))).toBeUndefined();
    expect(sniffImage(Buffer.from('BM this is not a bitmap header at all, only words'))).toBeUndefined();
    expect(sniffImage(Buffer.from('<!DOCTYPE html><html><body><svg width="1" height="1"></svg></body></html>'))).toBeUndefined();
  });

  it('reads WebP lossless and extended headers', () => {
    const vp8l = Buffer.alloc(30);
    vp8l.write('RIFF', 0, 'latin1');
    vp8l.write('WEBPVP8L', 8, 'latin1');
    vp8l[20] = 0x2f;
    // 14 bits width-1 = 299, then 14 bits height-1 = 199
    vp8l.writeUInt32LE(299 | (199 << 14), 21);
    expect(sniffImage(vp8l)).toMatchObject({ format: 'webp', width: 300, height: 200 });

    const vp8x = Buffer.alloc(30);
    vp8x.write('RIFF', 0, 'latin1');
    vp8x.write('WEBPVP8X', 8, 'latin1');
    vp8x.writeUIntLE(4999, 24, 3);
    vp8x.writeUIntLE(2999, 27, 3);
    expect(sniffImage(vp8x)).toMatchObject({ format: 'webp', width: 5000, height: 3000 });
  });

  it('tells HEIC, generic HEIF and AVIF apart by their brands', () => {
    const ftyp = (major: string, ...compatible: string[]): Buffer => {
      const box = Buffer.alloc(16 + compatible.length * 4);
      box.writeUInt32BE(box.length, 0);
      box.write(`ftyp${major}`, 4, 'latin1');
      compatible.forEach((brand, i) => box.write(brand, 16 + i * 4, 'latin1'));
      return box;
    };
    expect(sniffImage(ftyp('heix', 'mif1'))?.format).toBe('heic');
    expect(sniffImage(ftyp('mif1', 'heic'))?.format).toBe('heic');
    expect(sniffImage(ftyp('msf1', 'hevc'))?.format).toBe('heic');
    expect(sniffImage(ftyp('mif1', 'avif', 'miaf'))?.format).toBe('avif');
    expect(sniffImage(ftyp('avis', 'msf1'))?.format).toBe('avif');
    expect(sniffImage(ftyp('mif1', 'miaf'))).toEqual({ format: 'heif', mime: 'image/heif' });
    // an MP4 video has an ftyp box too, but is no image
    expect(sniffImage(ftyp('isom', 'iso2', 'mp41'))).toBeUndefined();
  });

  it('reads SVG size from viewBox when width and height are missing, past a DOCTYPE', () => {
    const svg = `\uFEFF<?xml version="1.0"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x.dtd">\n<svg\n  xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120.4 80"><g/></svg>`;
    expect(sniffImage(Buffer.from(svg))).toEqual({ format: 'svg', mime: 'image/svg+xml', width: 120, height: 80 });
  });

  it('knows a big-endian TIFF', () => {
    const tiff = Buffer.alloc(8 + 2 + 24);
    tiff.write('MM', 0, 'latin1');
    tiff.writeUInt16BE(42, 2);
    tiff.writeUInt32BE(8, 4);
    tiff.writeUInt16BE(2, 8);
    tiff.writeUInt16BE(256, 10); // ImageWidth, SHORT
    tiff.writeUInt16BE(3, 12);
    tiff.writeUInt32BE(1, 14);
    tiff.writeUInt16BE(640, 18);
    tiff.writeUInt16BE(257, 22); // ImageLength, LONG
    tiff.writeUInt16BE(4, 24);
    tiff.writeUInt32BE(1, 26);
    tiff.writeUInt32BE(480, 30);
    expect(sniffImage(tiff)).toEqual({ format: 'tiff', mime: 'image/tiff', width: 640, height: 480 });
  });
});
