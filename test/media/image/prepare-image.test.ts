import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodeBmp } from '../../../src/media/image/bmp-decode.ts';
import type { PreparedImage } from '../../../src/media/image/prepare-image.ts';
import { prepareImage } from '../../../src/media/image/prepare-image.ts';
import { sniffImage } from '../../../src/media/image/sniff-image.ts';

const fixture = (name: string): Buffer => readFileSync(join(import.meta.dirname, '../../fixtures/images', name));
const SERVICE_MIMES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/bmp'];

/** A reader of RGB pixels at fractions (fx, fy) of the first frame, as a viewer would show it. */
async function pixels(prepared: PreparedImage): Promise<(fx: number, fy: number) => number[]> {
  const raw =
    prepared.mime === 'image/bmp'
      ? decodeBmp(prepared.data)
      : await sharp(prepared.data)
          .autoOrient()
          .removeAlpha()
          .raw()
          .toBuffer({ resolveWithObject: true })
          .then(({ data, info }) => ({ data, width: info.width, channels: 3 }));
  return (fx, fy) => {
    const at = (Math.floor(prepared.height * fy) * raw.width + Math.floor(prepared.width * fx)) * raw.channels;
    return [...raw.data.subarray(at, at + 3)];
  };
}

function isRed([r, g, b]: number[]): boolean {
  return r > 200 && g < 60 && b < 60;
}
function isBlue([r, g, b]: number[]): boolean {
  return r < 60 && g < 60 && b > 200;
}

/** The marker shows red in its top-left quadrant and blue elsewhere only when it stands upright. */
async function expectUprightMarker(prepared: PreparedImage): Promise<void> {
  const colourAt = await pixels(prepared);
  for (const [qx, qy] of [
    [0, 0],
    [0.5, 0],
    [0, 0.5],
    [0.5, 0.5],
  ]) {
    for (const [dx, dy] of [
      [0.1, 0.1],
      [0.4, 0.1],
      [0.1, 0.4],
      [0.4, 0.4],
      [0.25, 0.25],
    ]) {
      const colour = colourAt(qx + dx, qy + dy);
      expect(qx === 0 && qy === 0 ? isRed(colour) : isBlue(colour), `${colour} at ${qx + dx}, ${qy + dy}`).toBe(true);
    }
  }
}

/** What the service will be told (the MIME type) is what the bytes are, at the size reported. */
function expectHonest(prepared: PreparedImage): void {
  expect(SERVICE_MIMES).toContain(prepared.mime);
  const sniffed = sniffImage(prepared.data);
  expect(sniffed?.mime).toBe(prepared.mime);
  expect({ width: sniffed?.width, height: sniffed?.height }).toEqual({ width: prepared.width, height: prepared.height });
}

describe('prepareImage: accepted formats pass through', () => {
  it.each([
    ['marker.png', 'image/png', 'png'],
    ['marker.webp', 'image/webp', 'webp'],
    ['marker.bmp', 'image/bmp', 'bmp'],
    ['animated.gif', 'image/gif', 'gif'],
  ])('%s is sent unchanged', async (name, mime, originalFormat) => {
    const input = fixture(name);
    const prepared = await prepareImage(input);
    expect(prepared).toMatchObject({ mime, width: 64, height: 48, converted: false, originalFormat });
    expect(prepared.data.equals(input)).toBe(true);
    await expectUprightMarker(prepared);
  });

  it('an animated GIF stays an animated GIF', async () => {
    const prepared = await prepareImage(fixture('animated.gif'));
    expect((await sharp(prepared.data, { animated: true }).metadata()).pages).toBe(3);
  });
});

describe('prepareImage: orientation', () => {
  it('turns a JPEG with EXIF orientation 6 upright', async () => {
    const prepared = await prepareImage(fixture('photo-orientation-6.jpg'));
    expect(prepared).toMatchObject({ mime: 'image/jpeg', width: 64, height: 48, converted: true, originalFormat: 'jpeg' });
    // no orientation tag is left for a viewer to apply a second time
    expect((await sharp(prepared.data).metadata()).orientation ?? 1).toBe(1);
    expectHonest(prepared);
    await expectUprightMarker(prepared);
  });

  it('turns a HEIC photo stored sideways with an irot rotation upright, as phones store portraits', async () => {
    const prepared = await prepareImage(fixture('marker-irot.heic'));
    expect(prepared).toMatchObject({ mime: 'image/jpeg', width: 64, height: 48, converted: true, originalFormat: 'heic' });
    expectHonest(prepared);
    await expectUprightMarker(prepared);
  });

  it('turns a TIFF with orientation 8 upright while converting it', async () => {
    const prepared = await prepareImage(fixture('marker-orientation-8.tif'));
    expect(prepared).toMatchObject({ mime: 'image/png', width: 64, height: 48, converted: true, originalFormat: 'tiff' });
    expectHonest(prepared);
    await expectUprightMarker(prepared);
  });
});

describe('prepareImage: formats the service does not take are converted', () => {
  it.each([
    ['marker.heic', 'image/jpeg', 'heic'],
    ['marker.avif', 'image/jpeg', 'avif'],
    ['marker.svg', 'image/png', 'svg'],
  ])('%s becomes %s', async (name, mime, originalFormat) => {
    const prepared = await prepareImage(fixture(name));
    expect(prepared).toMatchObject({ mime, width: 64, height: 48, converted: true, originalFormat });
    expectHonest(prepared);
    await expectUprightMarker(prepared);
  });

  it('keeps transparency by converting a translucent AVIF to PNG', async () => {
    const avif = await sharp({ create: { width: 40, height: 30, channels: 4, background: { r: 0, g: 0, b: 255, alpha: 0.5 } } })
      .avif()
      .toBuffer();
    const prepared = await prepareImage(avif);
    expect(prepared).toMatchObject({ mime: 'image/png', width: 40, height: 30 });
    expect((await sharp(prepared.data).stats()).isOpaque).toBe(false);
  });

  it('renders a huge SVG directly at a size within the budget', async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="40000" height="20000"><rect width="40000" height="20000" fill="#00f"/></svg>',
    );
    const prepared = await prepareImage(svg, { maxPixels: 20_000 });
    expect(prepared.mime).toBe('image/png');
    expect(prepared.width * prepared.height).toBeLessThanOrEqual(20_000);
    expect(prepared.width / prepared.height).toBeCloseTo(2, 1);
  });
});

describe('prepareImage: downscaling', () => {
  it('brings a 5000x4000 PNG under the service maximum, keeping its aspect ratio', async () => {
    const prepared = await prepareImage(fixture('huge-5000x4000.png'));
    expect(prepared).toMatchObject({ mime: 'image/png', converted: true, originalFormat: 'png' });
    expect(prepared.width * prepared.height).toBeLessThanOrEqual(8_388_608);
    // as large as the budget allows: within 0.2% of it
    expect(prepared.width * prepared.height).toBeGreaterThan(8_388_608 * 0.998);
    expect(prepared.width / prepared.height).toBeCloseTo(5000 / 4000, 2);
    expectHonest(prepared);
    await expectUprightMarker(prepared);
  });

  it.each([
    ['marker.png', 'image/png'],
    ['photo-orientation-6.jpg', 'image/jpeg'],
    ['marker.webp', 'image/webp'],
    ['marker.bmp', 'image/png'],
    ['marker.heic', 'image/jpeg'],
  ])('%s shrinks to a configured pixel budget as %s', async (name, mime) => {
    const prepared = await prepareImage(fixture(name), { maxPixels: 1000 });
    // 64x48 scaled by sqrt(1000 / 3072) = 0.5705: 36.5 -> 36, 27.4 -> 27; 36 * 27 = 972
    expect(prepared).toMatchObject({ mime, width: 36, height: 27, converted: true });
    expectHonest(prepared);
    await expectUprightMarker(prepared);
  });

  it('a downscaled animated GIF keeps all its frames', async () => {
    const prepared = await prepareImage(fixture('animated.gif'), { maxPixels: 768 });
    expect(prepared).toMatchObject({ mime: 'image/gif', width: 32, height: 24, converted: true });
    const meta = await sharp(prepared.data, { animated: true }).metadata();
    expect(meta.pages).toBe(3);
    expect(meta.pageHeight).toBe(24);
  });
});

describe('prepareImage: the Base64 size limit', () => {
  const noisy = (): Promise<Buffer> =>
    sharp(randomBytes(300 * 200 * 3), { raw: { width: 300, height: 200, channels: 3 } })
      .png()
      .toBuffer();

  it('re-encodes an image whose Base64 form is over the limit until it fits', async () => {
    const png = await noisy();
    expect(png.length).toBeGreaterThan(150_000);
    const prepared = await prepareImage(png, { maxBase64Bytes: 40_000 });
    expect(prepared.data.toString('base64').length).toBeLessThanOrEqual(40_000);
    expect(prepared.converted).toBe(true);
    expect(prepared.width / prepared.height).toBeCloseTo(1.5, 1);
    expectHonest(prepared);
  });

  it('converts a BMP that is within the pixel budget but over the size limit', async () => {
    // 9270 bytes of BMP are 12,360 Base64 characters
    const prepared = await prepareImage(fixture('marker.bmp'), { maxBase64Bytes: 5000 });
    expect(prepared).toMatchObject({ mime: 'image/png', width: 64, height: 48, converted: true });
    await expectUprightMarker(prepared);
  });

  it('fails with too_large when nothing fits', async () => {
    await expect(prepareImage(await noisy(), { maxBase64Bytes: 100 })).rejects.toMatchObject({
      code: 'too_large',
      message: expect.stringMatching(/too large to send.*1 KB limit/),
    });
  });
});

describe('prepareImage: files that are not usable images', () => {
  it('an empty file', async () => {
    await expect(prepareImage(fixture('empty.jpg'))).rejects.toMatchObject({
      code: 'empty',
      message: 'The image file is empty.',
    });
  });

  it('a text file', async () => {
    await expect(prepareImage(fixture('notes.txt'))).rejects.toMatchObject({
      code: 'unsupported_format',
      message: expect.stringMatching(/^This file is text, not an image\. Supported image formats: JPEG, PNG/),
    });
  });

  it('binary data of no image format', async () => {
    const pdf = Buffer.from('%PDF-1.7\n\xff\x00\x01binary', 'latin1');
    await expect(prepareImage(pdf)).rejects.toMatchObject({
      code: 'unsupported_format',
      message: expect.stringMatching(/^This file is not an image Herald can read\./),
    });
  });

  it('a truncated PNG of an accepted format is caught before sending', async () => {
    await expect(prepareImage(fixture('corrupt-truncated.png'))).rejects.toMatchObject({
      code: 'corrupt',
      message: 'The PNG image is damaged or incomplete and could not be read.',
    });
  });

  it.each([
    ['marker.heic', 'HEIC'],
    ['photo-orientation-6.jpg', 'JPEG'],
    ['marker.avif', 'AVIF'],
    ['marker.bmp', 'BMP'],
  ])('a truncated %s', async (name, formatName) => {
    const whole = fixture(name);
    const error = await prepareImage(whole.subarray(0, Math.floor(whole.length * 0.6))).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'corrupt',
      message: expect.stringMatching(new RegExp(`^The ${formatName} image is damaged or incomplete and could not be read`)),
    });
  });

  it('a GIF header followed by garbage', async () => {
    const gif = Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.from([64, 0, 48, 0]), Buffer.alloc(40, 0x5a)]);
    await expect(prepareImage(gif)).rejects.toMatchObject({ code: 'corrupt' });
  });
});
