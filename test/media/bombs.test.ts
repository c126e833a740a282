import { afterEach, describe, expect, it, vi } from 'vitest';
import { prepareAudioForAsr } from '../../src/media/audio/prepare-audio.ts';
import { pdfPageImages } from '../../src/media/document/pdf-page-images.ts';
import { prepareImage } from '../../src/media/image/prepare-image.ts';
import {
  gifScreenBomb,
  heifSizeBomb,
  matroskaRateLie,
  oggChannelBomb,
  pdfImageBomb,
  rleBmpBomb,
  svgFilterBomb,
  tiffStripBomb,
  wavRateLie,
} from '../hostile/corpus.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('decompression bombs are refused from their headers, before anything large is decoded', () => {
  it('an RLE BMP declaring 16383×16383', async () => {
    await expect(prepareImage(rleBmpBomb())).rejects.toThrow(/^The BMP image is too large to read \(16383×16383\)/);
  });

  it.each(['heic', 'avif'] as const)('an %s whose stored size says 16000×16000', async (format) => {
    await expect(prepareImage(heifSizeBomb(format))).rejects.toMatchObject({
      code: 'too_large',
      message: expect.stringMatching(/too large to read \(16000×16000\)/),
    });
  });

  it('a TIFF declaring 16383×16383 with 64 bytes of strips is damaged, not a black picture', async () => {
    await expect(prepareImage(tiffStripBomb())).rejects.toMatchObject({
      code: 'corrupt',
      message: expect.stringMatching(/^The TIFF image is damaged/),
    });
  });

  it('a GIF whose screen is 65535×65535 around one pixel is re-encoded at its real size, not sent on', async () => {
    const prepared = await prepareImage(gifScreenBomb());
    expect(prepared).toMatchObject({ mime: 'image/gif', width: 1, height: 1, converted: true });
    expect(prepared.data.readUInt16LE(6)).toBe(1);
    expect(prepared.data.readUInt16LE(8)).toBe(1);
  });

  it('an SVG whose filter takes minutes to draw is given up after the render time limit', async () => {
    await expect(prepareImage(svgFilterBomb())).rejects.toThrow(/^The SVG image is too complex to read in time/);
  }, 15_000);

  it('the scanned-PDF path leaves out a 16000×16000 page picture instead of decoding it', async () => {
    expect(await pdfPageImages(pdfImageBomb(), 5)).toEqual({ pages: 1, images: [], oversized: 1 });
  });

  it('a WAV declaring a sample rate of 19999999 Hz', async () => {
    await expect(prepareAudioForAsr(wavRateLie())).rejects.toThrow('This audio file is damaged: it declares a sample rate of 19999999 Hz.');
  });

  it('an Ogg Opus of 380 KB declaring 255 channels, each two minutes long', async () => {
    await expect(prepareAudioForAsr(oggChannelBomb())).rejects.toThrow('This recording has 255 channels; Herald reads recordings of up to 8.');
  });

  it('a WebM whose audio track declares 1e30 Hz and 255 channels', async () => {
    await expect(prepareAudioForAsr(matroskaRateLie())).rejects.toMatchObject({ code: 'corrupt' });
  });
});

describe('a HEIC that libheif fails to decode', () => {
  it('is reported as damaged without printing anything', async () => {
    const write = vi.spyOn(process.stdout, 'write');
    const log = vi.spyOn(console, 'log');
    // The stored size no longer matches the coded picture, so both libvips and libheif fail on it.
    await expect(prepareImage(heifSizeBomb('heic', 20, 20))).rejects.toMatchObject({ code: 'corrupt' });
    expect(write).not.toHaveBeenCalled();
    expect(log).not.toHaveBeenCalled();
  });
});
