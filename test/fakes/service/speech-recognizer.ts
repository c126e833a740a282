import type { TranscriptQuery } from './asr.ts';

/** Loudness is measured over 20 ms windows every 10 ms, so the alignment error is at most 5 ms. */
const WINDOW_SECONDS = 0.02;
const HOP_SECONDS = 0.01;
/** Quieter than this below the loudest window counts as silence: hiss and codec noise do not shape the contour. */
const DYNAMIC_RANGE_DB = 45;
/** Correlation a contour must reach to count as the registered utterance. */
const MATCH_SCORE = 0.8;
/** The part of a registered utterance that must lie inside the audio (a turn may clip its edges). */
const MIN_COVERAGE = 0.9;

interface Utterance {
  words: string;
  contour: Float64Array;
}

interface Match {
  words: string;
  /** The windows of the query it spans. */
  start: number;
  end: number;
  score: number;
}

/**
 * The emulator's speech recognition for recorded test speech: a test registers utterances (their samples and
 * words), and audio sent for transcription is recognized by its loudness contour, the level of every 20 ms. The
 * contour survives what a bot does to a turn: re-encoding and resampling, Opus round trips, gain, silence before
 * and after. Each registered utterance found in the audio (normalized cross-correlation of the contours at least
 * 0.8, over at least 90 % of the utterance) contributes its words, in the order spoken.
 */
export class SpeechRecognizer {
  readonly #utterances: Utterance[] = [];

  /** `samples`: mono signed 16-bit PCM at `sampleRate`. */
  register(words: string, samples: Int16Array, sampleRate = 48_000): void {
    const floats = Float32Array.from(samples, (sample) => sample / 32768);
    this.#utterances.push({ words, contour: loudnessContour(floats, sampleRate) });
  }

  clear(): void {
    this.#utterances.length = 0;
  }

  /** The words of the registered utterances in the audio, or undefined when there are none. */
  recognize(samples: Float32Array, sampleRate: number): string | undefined {
    const query = loudnessContour(samples, sampleRate);
    const found: Match[] = [];
    for (const candidate of this.#utterances.flatMap((utterance) => bestPlacements(utterance, query)).sort((a, b) => b.score - a.score)) {
      if (found.every((match) => candidate.end <= match.start || candidate.start >= match.end)) found.push(candidate);
    }
    if (found.length === 0) return undefined;
    return found
      .sort((a, b) => a.start - b.start)
      .map((match) => match.words)
      .join(' ');
  }

  /** For the emulator's transcript chain: WAV audio only (16-bit integer or 32-bit float samples). */
  transcribe(query: TranscriptQuery): string | undefined {
    if (query.format !== 'wav' || this.#utterances.length === 0) return undefined;
    const audio = wavMono(query.bytes);
    return audio && this.recognize(audio.samples, audio.sampleRate);
  }
}

/** Level in dB of each window, floored DYNAMIC_RANGE_DB below the loudest. */
function loudnessContour(samples: Float32Array, sampleRate: number): Float64Array {
  const window = Math.max(1, Math.round(sampleRate * WINDOW_SECONDS));
  const hop = Math.max(1, Math.round(sampleRate * HOP_SECONDS));
  const count = samples.length < window ? 0 : Math.floor((samples.length - window) / hop) + 1;
  const contour = new Float64Array(count);
  for (let index = 0; index < count; index++) {
    let sum = 0;
    for (let at = index * hop; at < index * hop + window; at++) sum += samples[at]! * samples[at]!;
    contour[index] = 10 * Math.log10(sum / window + 1e-12);
  }
  const floor = contour.reduce((loudest, level) => Math.max(loudest, level), Number.NEGATIVE_INFINITY) - DYNAMIC_RANGE_DB;
  return contour.map((level) => Math.max(level, floor));
}

/** Where in the query the utterance fits best: at most one placement, when it is good enough. */
function bestPlacements(utterance: Utterance, query: Float64Array): Match[] {
  const length = utterance.contour.length;
  const slack = Math.floor(length * (1 - MIN_COVERAGE));
  let best: Match | undefined;
  for (let offset = -slack; offset + length - slack <= query.length; offset++) {
    const start = Math.max(0, offset);
    const end = Math.min(query.length, offset + length);
    if (end - start < length * MIN_COVERAGE) continue;
    const score = correlation(query.subarray(start, end), utterance.contour.subarray(start - offset, end - offset));
    if (score >= MATCH_SCORE && score > (best?.score ?? 0)) best = { words: utterance.words, start, end, score };
  }
  return best ? [best] : [];
}

/** Pearson correlation of two equally long series; 0 when either is flat. */
function correlation(a: Float64Array, b: Float64Array): number {
  let meanA = 0;
  let meanB = 0;
  for (let i = 0; i < a.length; i++) {
    meanA += a[i]!;
    meanB += b[i]!;
  }
  meanA /= a.length;
  meanB /= b.length;
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    const [da, db] = [a[i]! - meanA, b[i]! - meanB];
    ab += da * db;
    aa += da * da;
    bb += db * db;
  }
  return aa === 0 || bb === 0 ? 0 : ab / Math.sqrt(aa * bb);
}

const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_IEEE_FLOAT = 3;

/** The channels of a 16-bit PCM or 32-bit float WAV, mixed to mono; undefined for anything else. */
function wavMono(bytes: Buffer): { samples: Float32Array; sampleRate: number } | undefined {
  if (bytes.length < 12 || bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WAVE') return undefined;
  let format: { tag: number; channels: number; sampleRate: number; bits: number } | undefined;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const id = bytes.toString('latin1', at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ' && body + 16 <= bytes.length) {
      format = {
        tag: bytes.readUInt16LE(body),
        channels: bytes.readUInt16LE(body + 2),
        sampleRate: bytes.readUInt32LE(body + 4),
        bits: bytes.readUInt16LE(body + 14),
      };
    } else if (id === 'data' && format) {
      const { tag, channels, sampleRate, bits } = format;
      const int16 = tag === WAVE_FORMAT_PCM && bits === 16;
      const float32 = tag === WAVE_FORMAT_IEEE_FLOAT && bits === 32;
      if ((!int16 && !float32) || channels < 1 || sampleRate < 1) return undefined;
      const frameBytes = (bits / 8) * channels;
      const frames = Math.floor(Math.min(size, bytes.length - body) / frameBytes);
      const samples = new Float32Array(frames);
      for (let frame = 0; frame < frames; frame++) {
        let sum = 0;
        for (let channel = 0; channel < channels; channel++) {
          const offset = body + frame * frameBytes + channel * (bits / 8);
          sum += int16 ? bytes.readInt16LE(offset) / 32768 : bytes.readFloatLE(offset);
        }
        samples[frame] = sum / channels;
      }
      return { samples, sampleRate };
    }
    at = body + size + (size % 2);
  }
  return undefined;
}
