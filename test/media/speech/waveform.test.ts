import { describe, expect, it } from 'vitest';
import { voiceMessageWaveform } from '../../../src/media/speech/waveform.ts';
import { speechLike } from './signals.ts';

function points(base64: string): number[] {
  return [...Buffer.from(base64, 'base64')];
}

describe('voice message waveform', () => {
  it('has 256 points at most, one per 100 ms for short clips, all within 0–255', () => {
    expect(points(voiceMessageWaveform(speechLike(60, 24000), 24000))).toHaveLength(256);
    expect(points(voiceMessageWaveform(speechLike(2, 24000), 24000))).toHaveLength(20);
    expect(points(voiceMessageWaveform(speechLike(0.01, 24000), 24000))).toHaveLength(1);
    const values = points(voiceMessageWaveform(speechLike(30, 24000), 24000));
    expect(Math.max(...values)).toBe(255);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
  });

  it('shows loud sections high and quiet sections low', () => {
    const samples = new Float32Array(24000 * 4);
    for (let i = 0; i < samples.length; i++) {
      const level = i < 24000 ? 0.5 : i < 48000 ? 0.05 : i < 72000 ? 0 : 0.25;
      samples[i] = level * Math.sin(i / 3);
    }
    const values = points(voiceMessageWaveform(samples, 24000));
    expect(values).toHaveLength(40);
    expect(values.slice(0, 10).every((v) => v === 255)).toBe(true);
    expect(values.slice(10, 20).every((v) => v > 20 && v < 30)).toBe(true); // a tenth of the loudest
    expect(values.slice(20, 30).every((v) => v === 0)).toBe(true);
    expect(values.slice(30).every((v) => v > 120 && v < 135)).toBe(true);
  });

  it('keeps near-silence flat instead of scaling room noise up to full bars', () => {
    const hiss = Float32Array.from({ length: 24000 }, (_, i) => 0.001 * Math.sin(i));
    expect(Math.max(...points(voiceMessageWaveform(hiss, 24000)))).toBeLessThan(30);
  });
});
