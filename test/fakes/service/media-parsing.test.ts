import { describe, expect, it } from 'vitest';
import { imageInfo } from './image-dims.ts';
import { imageTokens } from './image-tokens.ts';
import { bmpBytes, imageBytes, mp3Bytes, wavBytes } from './media-fixtures.ts';
import { mp3Seconds } from './mp3-duration.ts';
import { wavInfo } from './wav.ts';

describe('image headers', () => {
  it.each([
    ['png', {}],
    ['jpeg', {}],
    ['gif', {}],
    ['webp', {}],
    ['webp', { lossless: true }],
    ['webp', { alpha: true }],
  ] as const)('reads the size of a %s %j', async (format, options) => {
    const info = imageInfo(await imageBytes(format, 123, 45, options));
    expect(info).toEqual({ mime: `image/${format}`, width: 123, height: 45 });
  });

  it('reads bottom-up and top-down BMPs', () => {
    expect(imageInfo(bmpBytes(33, 17))).toEqual({ mime: 'image/bmp', width: 33, height: 17 });
    expect(imageInfo(bmpBytes(33, -17))).toEqual({ mime: 'image/bmp', width: 33, height: 17 });
  });

  it('rejects bytes that are no image', () => {
    expect(imageInfo(Buffer.from('definitely not an image file'))).toBeNull();
  });
});

describe('image token estimate', () => {
  it('counts one token per 32x32 block of a mid-sized image', () => {
    expect(imageTokens(1024, 1024)).toBe(1024);
    expect(imageTokens(640, 480)).toBe(300);
  });

  it('scales a tiny image up to at least the minimum pixel count (ERRATA 1)', () => {
    const tokens = imageTokens(10, 10);
    expect(tokens * 4 * 16 * 16).toBeGreaterThanOrEqual(8192);
    expect(tokens).toBe(9);
  });

  it('scales a huge image down below the maximum pixel count', () => {
    const tokens = imageTokens(4000, 3000);
    expect(tokens * 4 * 16 * 16).toBeLessThanOrEqual(8388608);
    expect(tokens).toBe(8112);
  });
});

describe('audio headers', () => {
  it('measures a WAV from its header', () => {
    const info = wavInfo(wavBytes(2.5));
    expect(info).toMatchObject({ sampleRate: 16000, channels: 1, bitsPerSample: 16 });
    expect(info!.seconds).toBeCloseTo(2.5, 6);
  });

  it('measures an MP3 by walking its frames after the ID3 tag', () => {
    expect(mp3Seconds(mp3Bytes(100))).toBeCloseTo((100 * 1152) / 44100, 6);
  });

  it('finds no MP3 frames in text', () => {
    expect(mp3Seconds(Buffer.from('just some text, no audio here at all'))).toBeNull();
  });
});
