import type { AudioInput } from './media-input.ts';

export interface TranscriptQuery {
  sha256: string;
  bytes: Buffer;
  format: 'wav' | 'mp3';
  seconds: number;
  /** `auto`, `zh` or `en`; `auto` when asr_options.language is absent. */
  language: string;
}

/** Chooses a transcript for one audio input; undefined falls back to the next source. */
export type Transcriber = (audio: TranscriptQuery) => string | undefined;

/**
 * The transcript of each audio input, joined by a space: the `transcripts` registry (sha256 hex of
 * the audio bytes → text) first, then the `transcribe` hook (the emulator's recognizer of registered
 * recordings, then the test's own hook), then
 * `Transcript of <seconds, 2 decimals> s of audio (language: <language>).`
 */
export function transcribe(audios: AudioInput[], language: string | undefined, registry: Map<string, string>, hook: Transcriber | undefined): string {
  return audios
    .map((audio) => {
      const query = { sha256: audio.sha256, bytes: audio.bytes, format: audio.format, seconds: audio.seconds, language: language ?? 'auto' };
      return registry.get(audio.sha256) ?? hook?.(query) ?? `Transcript of ${audio.seconds.toFixed(2)} s of audio (language: ${query.language}).`;
    })
    .join(' ');
}

/** Audio input tokens: 25 per second. */
export function audioTokens(seconds: number): number {
  return Math.ceil(seconds * 25);
}
