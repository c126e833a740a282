import { describe, expect, it } from 'vitest';
import { MediaError } from '../../../src/errors.ts';
import { createMonoPcmCollector, normalizePcm, normalizeToWav, toInt16 } from '../../../src/media/audio/normalize.ts';
import { createResampler } from '../../../src/media/audio/resample.ts';
import { readWav } from '../../../src/media/wav.ts';
import { fixture, rms } from './audio-fixtures.ts';

function tone(rate: number, hz: number, seconds: number, amplitude = 0.5): Float32Array {
  return Float32Array.from({ length: Math.round(rate * seconds) }, (_, i) => amplitude * Math.sin((2 * Math.PI * hz * i) / rate));
}

function resampleAll(input: Float32Array, from: number, to: number, chunk = input.length): Float32Array {
  const resampler = createResampler(from, to);
  const parts: Float32Array[] = [];
  for (let at = 0; at < input.length; at += chunk) parts.push(resampler.push(input.subarray(at, at + chunk)));
  parts.push(resampler.flush());
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const gainDb = (output: Float32Array, amplitude: number) => 20 * Math.log10(rms(output, 800, output.length - 800) / (amplitude / Math.SQRT2));

describe('resampling to 16 kHz', () => {
  it.each([8000, 11025, 22050, 44100, 48000, 96000])('keeps speech frequencies from %i Hz at full level', (rate) => {
    for (const hz of [200, 1000, 3400, 6000]) {
      if (hz > (Math.min(rate, 16000) / 2) * (7 / 8)) continue; // the passband ends at 7/8 of the lower Nyquist
      const input = tone(rate, hz, 0.5);
      const out = resampleAll(input, rate, 16000);
      expect(out.length).toBe(Math.round((input.length * 16000) / rate));
      expect(Math.abs(gainDb(out, 0.5))).toBeLessThan(0.05);
    }
  });

  it.each([44100, 48000])('filters out what 16 kHz cannot hold instead of folding it back (from %i Hz)', (rate) => {
    for (const hz of [10_000, 12_000, 15_000]) {
      expect(gainDb(resampleAll(tone(rate, hz, 0.5), rate, 16000), 0.5)).toBeLessThan(-60);
    }
  });

  it('follows the ideal waveform without delay', () => {
    const out = resampleAll(tone(48000, 440, 1), 48000, 16000);
    const ideal = tone(16000, 440, 1);
    let worst = 0;
    for (let i = 200; i < 15800; i++) worst = Math.max(worst, Math.abs(out[i]! - ideal[i]!));
    expect(worst).toBeLessThan(1e-3);
  });

  it('gives the same samples whether fed at once or in odd-sized chunks', () => {
    const input = tone(44100, 523, 2);
    const whole = resampleAll(input, 44100, 16000);
    const chunked = resampleAll(input, 44100, 16000, 777);
    expect(chunked).toEqual(whole);
  });

  it('handles a rate with no small common factor with 16 kHz', () => {
    const out = resampleAll(tone(47999, 1000, 1), 47999, 16000);
    expect(out.length).toBe(Math.round((47999 * 16000) / 47999));
    expect(Math.abs(gainDb(out, 0.5))).toBeLessThan(0.05);
  });
});

describe('normalization', () => {
  it('turns stereo 44.1 kHz into a valid 16 kHz mono 16-bit WAV of the same length, channels averaged', () => {
    const wav = normalizeToWav(readWav(fixture('stereo-44k.wav')));
    expect(wav.readUInt16LE(20)).toBe(1); // PCM
    expect(wav.readUInt16LE(34)).toBe(16);
    const audio = readWav(wav);
    expect(audio.sampleRate).toBe(16000);
    expect(audio.channels).toHaveLength(1);
    expect(audio.channels[0]).toHaveLength(14400);
    const expected = (i: number) => (0.5 * Math.sin((2 * Math.PI * 440 * i) / 16000) + 0.25 * Math.sin((2 * Math.PI * 880 * i) / 16000)) / 2;
    let worst = 0;
    for (let i = 300; i < 14100; i++) worst = Math.max(worst, Math.abs(audio.channels[0]![i]! - expected(i)));
    expect(worst).toBeLessThan(2e-3);
  });

  it('leaves 16 kHz mono untouched apart from 16-bit rounding', () => {
    const input = tone(16000, 300, 0.25);
    const out = normalizePcm({ sampleRate: 16000, channels: [input] });
    expect(out).toEqual(toInt16(input));
  });

  it('clips out-of-range float samples instead of wrapping them', () => {
    expect([...toInt16(new Float32Array([1.5, -1.5, 1, -1, 0.5]))]).toEqual([32767, -32768, 32767, -32768, 16384]);
  });

  it('joins pieces that change sample rate midway (chained streams)', () => {
    const collector = createMonoPcmCollector();
    collector.push({ sampleRate: 8000, channels: [tone(8000, 500, 0.5)] });
    collector.push({ sampleRate: 48000, channels: [tone(48000, 500, 0.5)] });
    expect(collector.finish()).toHaveLength(16000);
  });

  it('stops with a clear too_long error as soon as the limit is passed', () => {
    const collector = createMonoPcmCollector({ maxDurationSeconds: 60 });
    const minute = { sampleRate: 8000, channels: [new Float32Array(8000 * 40)] };
    collector.push(minute);
    let error: unknown;
    try {
      collector.push(minute);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MediaError);
    expect((error as MediaError).code).toBe('too_long');
    expect((error as MediaError).message).toMatch(/longer than the 60 seconds Herald transcribes at once/);
  });
});
