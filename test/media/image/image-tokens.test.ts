import { describe, expect, it } from 'vitest';
import { estimateImageTokens } from '../../../src/media/image/image-tokens.ts';

// Each case is worked by hand from service-api.md §8 with ERRATA 1. Sizes are written width x height;
// the steps use h_bar, w_bar; tokens = (h_bar/16) * (w_bar/16) / 4.
describe('estimateImageTokens', () => {
  it('ordinary sizes already on the 32 grid', () => {
    // 1024x768: 768/32 = 24 -> 768, 1024/32 = 32 -> 1024; 786,432 px is within [8192, 8,388,608]
    // tokens = (768/16) * (1024/16) / 4 = 48 * 64 / 4 = 768
    expect(estimateImageTokens(1024, 768)).toBe(768);
  });

  it('rounds each side to the nearest multiple of 32', () => {
    // 1920x1080: 1080/32 = 33.75 -> 34 -> 1088, 1920/32 = 60 -> 1920; 2,088,960 px within
    // tokens = 68 * 120 / 4 = 2040
    expect(estimateImageTokens(1920, 1080)).toBe(2040);
  });

  it('rounds an exact half to the even multiple, as Python round() does', () => {
    // 1040x768: 1040/32 = 32.5 -> 32 (even) -> 1024; tokens = 48 * 64 / 4 = 768
    // (rounding half up would give 1056 and 48 * 66 / 4 = 792)
    expect(estimateImageTokens(1040, 768)).toBe(768);
    // 1072x768: 1072/32 = 33.5 -> 34 (even) -> 1088; tokens = 48 * 68 / 4 = 816
    expect(estimateImageTokens(1072, 768)).toBe(816);
  });

  it('scales a below-minimum image up until it reaches 8192 px', () => {
    // 10x10: 10/32 = 0.3125 -> 0, area 0 < 8192
    // beta = sqrt(8192 / 100) = 9.0510; 10 * 9.0510 / 32 = 2.83 -> ceil 3 -> 96; 96 * 96 = 9216 >= 8192
    // tokens = 6 * 6 / 4 = 9
    expect(estimateImageTokens(10, 10)).toBe(9);
    // 50x60: h 60/32 = 1.875 -> 64, w 50/32 = 1.5625 -> 64; 4096 < 8192
    // beta = sqrt(8192 / 3000) = 1.65247; h 60 * 1.65247 / 32 = 3.098 -> 4 -> 128;
    // w 50 * 1.65247 / 32 = 2.582 -> 3 -> 96; 128 * 96 = 12,288 >= 8192; tokens = 8 * 6 / 4 = 12
    expect(estimateImageTokens(50, 60)).toBe(12);
    // 1x1: beta = sqrt(8192) = 90.51; 90.51 / 32 = 2.83 -> 3 -> 96; tokens = 9
    expect(estimateImageTokens(1, 1)).toBe(9);
  });

  it('exactly 32x32 is below the minimum and is scaled up', () => {
    // 32/32 = 1 -> 32; 1024 < 8192; beta = sqrt(8192 / 1024) = 2.8284; 32 * 2.8284 / 32 = 2.83 -> 3 -> 96
    // tokens = 6 * 6 / 4 = 9
    expect(estimateImageTokens(32, 32)).toBe(9);
  });

  it('never leaves a small image below the minimum area after step 3', () => {
    for (let w = 1; w <= 120; w += 7) {
      for (let h = 1; h <= 120; h += 5) {
        // area = tokens * 4 * 16 * 16
        expect(estimateImageTokens(w, h) * 1024).toBeGreaterThanOrEqual(8192);
      }
    }
  });

  it('scales an above-maximum image down, dividing by beta', () => {
    // 4000x3000: h 3000/32 = 93.75 -> 94 -> 3008, w 4000/32 = 125 -> 4000; 12,032,000 > 8,388,608
    // beta = sqrt(12,000,000 / 8,388,608) = 1.19604; h 3000 / 1.19604 / 32 = 78.38 -> 78 -> 2496;
    // w 4000 / 1.19604 / 32 = 104.51 -> 104 -> 3328; tokens = 156 * 208 / 4 = 8112
    expect(estimateImageTokens(4000, 3000)).toBe(8112);
    // 10000x10000: 10000/32 = 312.5 -> 312 (even) -> 9984; 99,680,256 > max
    // beta = sqrt(100,000,000 / 8,388,608) = 3.45267; 10000 / 3.45267 / 32 = 90.51 -> 90 -> 2880
    // tokens = 180 * 180 / 4 = 8100
    expect(estimateImageTokens(10000, 10000)).toBe(8100);
  });

  it('extreme aspect ratios', () => {
    // 20x5000: h 5000/32 = 156.25 -> 156 -> 4992, w 20/32 = 0.625 -> 1 -> 32; 159,744 px within
    // tokens = 312 * 2 / 4 = 156
    expect(estimateImageTokens(20, 5000)).toBe(156);
    expect(estimateImageTokens(5000, 20)).toBe(156);
    // 10x5000: w 10/32 = 0.3125 -> 0, so the area is 0 and step 3 applies even though the image is large:
    // beta = sqrt(8192 / 50,000) = 0.404772; h 5000 * 0.404772 / 32 = 63.25 -> 64 -> 2048;
    // w 10 * 0.404772 / 32 = 0.13 -> 1 -> 32; tokens = 128 * 2 / 4 = 64 (the formula as written)
    expect(estimateImageTokens(10, 5000)).toBe(64);
  });

  it('rejects sizes that are not positive integers', () => {
    expect(() => estimateImageTokens(0, 10)).toThrow(RangeError);
    expect(() => estimateImageTokens(10, 2.5)).toThrow(RangeError);
  });
});
