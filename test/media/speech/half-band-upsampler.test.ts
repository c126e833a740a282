import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HalfBandUpsampler, upsample2x } from '../../../src/media/speech/half-band-upsampler.ts';
import { toInt16 } from '../../../src/media/speech/samples.ts';
import { ffmpegNote, hasFfmpeg } from './ffmpeg.ts';
import { int16Bytes, seededRandom, sineInt16 } from './signals.ts';

const AMPLITUDE = 16000;
const PHASE = 0.3;

/** SNR in dB of 48 kHz s16 output against the exact sine it should be, away from the stream's ends. */
function snrAgainstIdealSine(output: ArrayLike<number>, frequency: number): number {
  let signal = 0;
  let error = 0;
  for (let i = 4000; i < output.length - 4000; i++) {
    const ideal = AMPLITUDE * Math.sin((2 * Math.PI * frequency * i) / 48000 + PHASE);
    signal += ideal * ideal;
    error += (output[i]! - ideal) ** 2;
  }
  return 10 * Math.log10(signal / error);
}

const FREQUENCIES = [440, 1000, 5000, 9000];

describe('half-band 2× upsampler', () => {
  it.each(FREQUENCIES)('reproduces a %i Hz sine at 48 kHz with at least 80 dB SNR', (frequency) => {
    const output = Int16Array.from(upsample2x(sineInt16(frequency, 24000, 24000, AMPLITUDE, PHASE)), toInt16);
    expect(snrAgainstIdealSine(output, frequency)).toBeGreaterThan(80);
  });

  it('is a real interpolation filter, not sample repetition or linear interpolation', () => {
    const input = sineInt16(9000, 24000, 24000, AMPLITUDE, PHASE);
    const repeated = Array.from({ length: 48000 }, (_, i) => input[i >> 1]!);
    const linear = Array.from({ length: 48000 }, (_, i) => (i % 2 === 0 ? input[i / 2]! : (input[(i - 1) / 2]! + (input[(i + 1) / 2] ?? 0)) / 2));
    const ours = Int16Array.from(upsample2x(input), toInt16);
    expect(snrAgainstIdealSine(repeated, 9000)).toBeLessThan(10);
    expect(snrAgainstIdealSine(linear, 9000)).toBeLessThan(10);
    expect(snrAgainstIdealSine(ours, 9000)).toBeGreaterThan(80);
  });

  it('keeps input samples as the even outputs and yields exactly twice as many samples', () => {
    const input = sineInt16(1234, 24000, 999);
    const output = upsample2x(input);
    expect(output.length).toBe(1998);
    for (let i = 0; i < input.length; i++) expect(output[2 * i]).toBe(input[i]);
  });

  it('gives the same output, bit for bit, whatever the chunking (no seams at chunk boundaries)', () => {
    const input = sineInt16(3000, 24000, 20000);
    const whole = upsample2x(input);
    const random = seededRandom(3);
    const upsampler = new HalfBandUpsampler();
    const parts: Float32Array[] = [];
    for (let at = 0; at < input.length; ) {
      const size = [0, 1, 2, 47, 48, 49, 480, Math.floor(random() * 3000)][Math.floor(random() * 8)]!;
      parts.push(upsampler.push(input.subarray(at, at + size)));
      at += size;
    }
    parts.push(upsampler.flush());
    const streamed = Float32Array.from(parts.flatMap((p) => [...p]));
    expect(streamed.length).toBe(whole.length);
    expect(streamed).toEqual(whole);
  });

  it('emits output while streaming, holding back only 1 ms of lookahead', () => {
    const upsampler = new HalfBandUpsampler();
    expect(upsampler.push(new Int16Array(480)).length).toBe(2 * (480 - 24));
    expect(upsampler.push(new Int16Array(480)).length).toBe(960);
    expect(upsampler.flush().length).toBe(48);
  });

  describe.skipIf(!hasFfmpeg)(`against ffmpeg's resampler${ffmpegNote}`, () => {
    it.each(FREQUENCIES)('is at least as accurate as ffmpeg on a %i Hz sine', (frequency) => {
      const input = sineInt16(frequency, 24000, 24000, AMPLITUDE, PHASE);
      const reference = execFileSync(
        'ffmpeg',
        ['-v', 'error', '-f', 's16le', '-ar', '24000', '-ac', '1', '-i', '-', '-ar', '48000', '-f', 's16le', '-'],
        { input: int16Bytes(input) },
      );
      const ffmpeg = Array.from({ length: reference.length / 2 }, (_, i) => reference.readInt16LE(i * 2));
      const ours = Int16Array.from(upsample2x(input), toInt16);
      const ffmpegSnr = snrAgainstIdealSine(ffmpeg, frequency);
      expect(ffmpegSnr).toBeGreaterThan(60); // ffmpeg's output is aligned with the input, as ours is
      expect(snrAgainstIdealSine(ours, frequency)).toBeGreaterThan(ffmpegSnr - 1);
    });
  });
});
