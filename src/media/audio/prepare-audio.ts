import { MEDIA_BUDGET, withMediaBudget } from '../media-budget.ts';
import type { OpusBackend } from '../opus-backend.ts';
import { wavDurationSeconds } from '../wav.ts';
import { decodeStream, isInProcessFormat } from './decode-audio.ts';
import { ffmpegToMonoPcm, type FfmpegOptions } from './ffmpeg.ts';
import { ASR_SAMPLE_RATE, createMonoPcmCollector, tooLong } from './normalize.ts';
import { dataUrlLength, DEFAULT_MAX_BASE64_BYTES, prepareForTranscription, type AudioSegment } from './segments.ts';
import { sniffAudio, type AudioFormat } from './sniff-audio.ts';

export const DEFAULT_MAX_DURATION_SECONDS = 30 * 60;

/** Share of the media budget a recording takes: 30 minutes of 16 kHz samples, in segments and whole, is about 120 MB. */
const AUDIO_WEIGHT = MEDIA_BUDGET / 4;

export interface PrepareAudioOptions {
  /** Longest recording accepted; longer ones fail with MediaError `too_long`. Default 30 min. */
  maxDurationSeconds?: number;
  /** Longest data URL per segment, in characters. Default 10 x 1024 x 1024. */
  maxBase64Bytes?: number;
  /** How far before each segment's size limit to look for a pause to cut at. Default 5 s. */
  searchWindowSeconds?: number;
  /** How ffmpeg is found and run, for the formats only it can read (M4A/MP4, ADTS AAC, other Matroska codecs). */
  ffmpeg?: Omit<FfmpegOptions, 'maxDurationSeconds'>;
  /** Which libopus decodes Opus. Default: native when installed. */
  opusBackend?: OpusBackend;
}

export interface PreparedAudio {
  /** In recording order; each fits the service's size limit. */
  segments: AudioSegment[];
  durationSeconds: number;
  sourceFormat: AudioFormat;
  /** The source format as a person would name it, e.g. "Ogg Opus". */
  sourceLabel: string;
}

/**
 * Turns whatever a user recorded into what speech recognition accepts: MP3 that fits goes as it is;
 * everything else becomes 16 kHz mono 16-bit WAV, split at pauses into segments that each fit.
 * Throws MediaError (empty, corrupt, unsupported_format, too_long, ffmpeg_missing, conversion_failed).
 */
export async function prepareAudioForAsr(bytes: Uint8Array, options: PrepareAudioOptions = {}): Promise<PreparedAudio> {
  return withMediaBudget(AUDIO_WEIGHT, () => prepare(bytes, options));
}

async function prepare(bytes: Uint8Array, options: PrepareAudioOptions): Promise<PreparedAudio> {
  const maxDurationSeconds = options.maxDurationSeconds ?? DEFAULT_MAX_DURATION_SECONDS;
  const maxBase64Bytes = options.maxBase64Bytes ?? DEFAULT_MAX_BASE64_BYTES;
  const { format, label } = sniffAudio(bytes);
  const source = { sourceFormat: format, sourceLabel: label };

  if (format === 'wav') {
    const seconds = wavDurationSeconds(bytes);
    if (seconds > maxDurationSeconds) throw tooLong(maxDurationSeconds, seconds);
  }

  if (format === 'mp3' && dataUrlLength('audio/mpeg', bytes.length) <= maxBase64Bytes) {
    let seconds = 0;
    await decodeStream(bytes, format, (audio) => {
      seconds += audio.channels[0]!.length / audio.sampleRate;
      if (seconds > maxDurationSeconds) throw tooLong(maxDurationSeconds);
    });
    const segment: AudioSegment = { mime: 'audio/mpeg', data: Buffer.from(bytes), startSeconds: 0, durationSeconds: seconds };
    return { segments: [segment], durationSeconds: seconds, ...source };
  }

  let samples: Int16Array;
  if (isInProcessFormat(format)) {
    const collector = createMonoPcmCollector({ maxDurationSeconds });
    await decodeStream(bytes, format, (audio) => collector.push(audio), { opusSampleRate: ASR_SAMPLE_RATE, opusBackend: options.opusBackend });
    samples = collector.finish();
  } else {
    samples = await ffmpegToMonoPcm(bytes, label, { ...options.ffmpeg, maxDurationSeconds });
  }
  const segments = prepareForTranscription(samples, { maxBase64Bytes, searchWindowSeconds: options.searchWindowSeconds });
  return { segments, durationSeconds: samples.length / ASR_SAMPLE_RATE, ...source };
}
