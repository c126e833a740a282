import { MediaError } from '../../errors.ts';

/**
 * Highest sample rate Herald decodes (studio recorders stop at 384 kHz). Resampling from a rate a header
 * invents would need a filter of millions of taps, so a rate above it is refused before anything is decoded.
 */
export const MAX_SAMPLE_RATE = 384_000;

/** Most channels a recording may have (Ogg and Matroska allow 255). */
export const MAX_CHANNELS = 255;

export function unlikelyRate(sampleRate: number): MediaError {
  return new MediaError(`This audio file is damaged: it declares a sample rate of ${sampleRate} Hz.`, { code: 'corrupt' });
}
