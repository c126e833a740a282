import { MediaError } from '../../errors.ts';
import { toInt16 as sampleToInt16 } from '../speech/samples.ts';
import { writeWav, type PcmAudio } from '../wav.ts';
import { MAX_SAMPLE_RATE, unlikelyRate } from './audio-limits.ts';
import { createResampler, type Resampler } from './resample.ts';

/** Speech recognition gets 16 kHz mono 16-bit PCM: what ASR models are trained on, and half the bytes of 32 kHz. */
export const ASR_SAMPLE_RATE = 16000;

export function describeDuration(seconds: number): string {
  const [value, unit] = seconds < 120 ? [seconds, 'second'] : [seconds / 60, 'minute'];
  const shown = value < 10 ? Math.round(value * 10) / 10 : Math.round(value);
  return `${shown} ${unit}${shown === 1 ? '' : 's'}`;
}

export function tooLong(maxDurationSeconds: number, actualSeconds?: number): MediaError {
  const actual = actualSeconds === undefined ? 'longer than' : `${describeDuration(actualSeconds)}, more than`;
  return new MediaError(
    `This recording is ${actual} the ${describeDuration(maxDurationSeconds)} Herald transcribes at once. Please send a shorter clip.`,
    { code: 'too_long' },
  );
}

/** Averages the channels. */
export function downmix(channels: Float32Array[]): Float32Array {
  if (channels.length === 1) return channels[0]!;
  const length = channels[0]!.length;
  const out = new Float32Array(length);
  for (const channel of channels) for (let i = 0; i < length; i++) out[i]! += channel[i]!;
  const scale = 1 / channels.length;
  for (let i = 0; i < length; i++) out[i]! *= scale;
  return out;
}

export function toInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = sampleToInt16(samples[i]! * 32768);
  return out;
}

export interface MonoPcmCollector {
  /** Adds decoded audio; throws MediaError `too_long` as soon as the total passes the limit. */
  push(audio: PcmAudio): void;
  /** The whole recording as 16 kHz mono 16-bit samples. */
  finish(): Int16Array;
}

/** Downmixes and resamples audio as it is decoded, so a long file never sits in memory at its original rate. */
export function createMonoPcmCollector(options: { maxDurationSeconds?: number } = {}): MonoPcmCollector {
  const max = options.maxDurationSeconds ?? Infinity;
  const parts: Int16Array[] = [];
  let seconds = 0;
  let rate = 0;
  let resampler: Resampler | undefined;
  const emit = (samples: Float32Array) => {
    if (samples.length > 0) parts.push(toInt16(samples));
  };
  return {
    push(audio) {
      const frames = audio.channels[0]?.length ?? 0;
      if (frames === 0) return;
      seconds += frames / audio.sampleRate;
      if (seconds > max) throw tooLong(max);
      if (audio.sampleRate !== rate) {
        if (!(audio.sampleRate >= 1 && audio.sampleRate <= MAX_SAMPLE_RATE)) throw unlikelyRate(audio.sampleRate);
        if (resampler) emit(resampler.flush());
        rate = audio.sampleRate;
        resampler = createResampler(rate, ASR_SAMPLE_RATE);
      }
      emit(resampler!.push(downmix(audio.channels)));
    },
    finish() {
      if (resampler) emit(resampler.flush());
      resampler = undefined;
      const out = new Int16Array(parts.reduce((sum, p) => sum + p.length, 0));
      let at = 0;
      for (const part of parts) {
        out.set(part, at);
        at += part.length;
      }
      return out;
    },
  };
}

/** Any planar audio as 16 kHz mono 16-bit samples. */
export function normalizePcm(audio: PcmAudio): Int16Array {
  const collector = createMonoPcmCollector();
  collector.push(audio);
  return collector.finish();
}

/** Any planar audio as a 16 kHz mono 16-bit WAV file. */
export function normalizeToWav(audio: PcmAudio): Buffer {
  return writeWav(normalizePcm(audio), ASR_SAMPLE_RATE, 1);
}
