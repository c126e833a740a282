import { writeWav } from '../wav.ts';
import { ASR_SAMPLE_RATE } from './normalize.ts';

/** The service takes audio as a base64 data URL of at most 10 MB, with MB = 1024 x 1024 characters (ERRATA 5). */
export const DEFAULT_MAX_BASE64_BYTES = 10 * 1024 * 1024;

export type AsrMime = 'audio/wav' | 'audio/mpeg';

export interface AudioSegment {
  mime: AsrMime;
  data: Buffer;
  startSeconds: number;
  durationSeconds: number;
}

export function base64Length(byteLength: number): number {
  return 4 * Math.ceil(byteLength / 3);
}

/**
 * Length of the `data:<mime>;base64,...` URL that carries `byteLength` bytes. The limit is counted
 * against the whole URL, prefix included: 22 characters of margin are cheaper than a rejected request.
 */
export function dataUrlLength(mime: AsrMime, byteLength: number): number {
  return `data:${mime};base64,`.length + base64Length(byteLength);
}

const WAV_HEADER_BYTES = 44;

/**
 * Most 16-bit mono samples one WAV segment may hold. With the default limit: 10,485,760 characters
 * of data URL carry 7,864,302 bytes, i.e. 3,932,129 samples = 245.76 s (4.1 min) at 16 kHz.
 */
export function maxWavSamples(maxBase64Bytes: number = DEFAULT_MAX_BASE64_BYTES): number {
  const prefix = dataUrlLength('audio/wav', 0);
  const bytes = Math.floor((maxBase64Bytes - prefix) / 4) * 3;
  return Math.max(0, Math.floor((bytes - WAV_HEADER_BYTES) / 2));
}

export interface SegmentPlanOptions {
  /** Longest segment, in samples. */
  maxSamples: number;
  sampleRate?: number;
  /** How far back from a segment's size limit to look for a quiet place to cut. Default 5 s. */
  searchWindowSeconds?: number;
  /** Length of the windows whose energy is compared; about a short pause between words. Default 0.1 s. */
  energyWindowSeconds?: number;
}

/** A half-open range of sample indices. */
export interface SampleRange {
  start: number;
  end: number;
}

const HOP_SECONDS = 0.01;

/**
 * Splits a recording into ranges of at most `maxSamples`. Each cut falls in the middle of the
 * lowest-energy window within the last `searchWindowSeconds` before the limit, so a cut lands in a
 * pause rather than in a word whenever there is a pause to find.
 */
export function planSegments(samples: Int16Array, options: SegmentPlanOptions): SampleRange[] {
  const rate = options.sampleRate ?? ASR_SAMPLE_RATE;
  const max = Math.floor(options.maxSamples);
  if (max < 1) throw new RangeError('planSegments: maxSamples must be at least 1');
  const search = Math.min(Math.round((options.searchWindowSeconds ?? 5) * rate), Math.floor(max / 2));
  const window = Math.max(1, Math.min(Math.round((options.energyWindowSeconds ?? 0.1) * rate), search));
  const hop = Math.max(1, Math.round(HOP_SECONDS * rate));
  const ranges: SampleRange[] = [];
  let start = 0;
  while (samples.length - start > max) {
    const limit = start + max;
    const from = limit - search;
    const energy = new Float64Array(search + 1);
    for (let i = 0; i < search; i++) {
      const v = samples[from + i]!;
      energy[i + 1] = energy[i]! + v * v;
    }
    let cut = limit;
    let best = Infinity;
    for (let s = 0; s + window <= search; s += hop) {
      const e = energy[s + window]! - energy[s]!;
      // On a tie the later window wins: longer segments mean fewer requests.
      if (e <= best) {
        best = e;
        cut = from + s + (window >> 1);
      }
    }
    ranges.push({ start, end: cut });
    start = cut;
  }
  ranges.push({ start, end: samples.length });
  return ranges;
}

export interface PrepareSegmentsOptions {
  maxBase64Bytes?: number;
  searchWindowSeconds?: number;
  energyWindowSeconds?: number;
}

/** Cuts 16 kHz mono samples into WAV segments whose data URLs each fit the service's limit. */
export function prepareForTranscription(samples: Int16Array, options: PrepareSegmentsOptions = {}): AudioSegment[] {
  const maxSamples = maxWavSamples(options.maxBase64Bytes);
  if (maxSamples < ASR_SAMPLE_RATE) throw new RangeError('prepareForTranscription: maxBase64Bytes leaves room for less than a second of audio');
  const ranges = planSegments(samples, {
    maxSamples,
    sampleRate: ASR_SAMPLE_RATE,
    searchWindowSeconds: options.searchWindowSeconds,
    energyWindowSeconds: options.energyWindowSeconds,
  });
  return ranges.map(({ start, end }) => ({
    mime: 'audio/wav',
    data: writeWav(samples.subarray(start, end), ASR_SAMPLE_RATE, 1),
    startSeconds: start / ASR_SAMPLE_RATE,
    durationSeconds: (end - start) / ASR_SAMPLE_RATE,
  }));
}

const CJK_END = /[\u3000-\u9fff\uac00-\ud7af\uff00-\uffef]$/u;
const CJK_START = /^[\u3000-\u9fff\uac00-\ud7af\uff00-\uffef]/u;

/** Joins transcripts of consecutive segments: a space between words, nothing between CJK characters. */
export function joinTranscripts(parts: string[]): string {
  let text = '';
  for (const raw of parts) {
    const part = raw.trim();
    if (!part) continue;
    text += text && !(CJK_END.test(text) && CJK_START.test(part)) ? ` ${part}` : part;
  }
  return text;
}

/**
 * Transcribes segments with at most `concurrency` requests in flight and joins the text in
 * recording order. The first failure rejects the whole and starts no further requests.
 */
export async function transcribeSegments<S>(
  segments: readonly S[],
  transcribeOne: (segment: S, index: number) => Promise<string>,
  options: { concurrency?: number } = {},
): Promise<string> {
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 3));
  const results = new Array<string>(segments.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < segments.length) {
      const index = next++;
      try {
        results[index] = await transcribeOne(segments[index]!, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, segments.length) }, worker));
  return joinTranscripts(results);
}
