import { MediaError } from '../../errors.ts';

/**
 * Highest sample rate Herald decodes (studio recorders stop at 384 kHz). Resampling from a rate a header
 * invents would need a filter of millions of taps, so a rate above it is refused before anything is decoded.
 */
export const MAX_SAMPLE_RATE = 384_000;

/** Most channels a container may declare (Ogg and Matroska allow 255). */
export const MAX_CHANNELS = 255;

/**
 * Most channels Herald decodes (7.1 surround): speech recognition hears one, and decoding 255 channels of a few
 * hundred kilobytes of Opus takes minutes.
 */
export const MAX_DECODED_CHANNELS = 8;

export function tooManyChannels(channels: number): MediaError {
  return new MediaError(`This recording has ${channels} channels; Herald reads recordings of up to ${MAX_DECODED_CHANNELS}.`, {
    code: 'unsupported_format',
  });
}

export function unlikelyRate(sampleRate: number): MediaError {
  return new MediaError(`This audio file is damaged: it declares a sample rate of ${sampleRate} Hz.`, { code: 'corrupt' });
}
