import type { Readable } from 'node:stream';
import { opusFrameReadable, type OpusFrameStreamOptions } from '../media/speech/opus-frame-stream.ts';
import { prefetch, type PrefetchEnd } from './prefetch.ts';

export interface LiveSpeech {
  /**
   * 20 ms Opus packets (48 kHz stereo), object mode: what a voice connection plays. Each packet leaves
   * as soon as its audio has arrived; the stream ends cleanly (last frame padded) even when synthesis fails.
   */
  packets: Readable;
  /** How the synthesis ended; a failure here means the audio stopped early. */
  synthesis: Promise<PrefetchEnd>;
  /** Stops synthesis and playback input at once. */
  cancel(): void;
}

/**
 * Starts speech that plays while it is still being synthesized: the pcm16 stream (24 kHz mono) is read
 * eagerly, and packets are encoded one step ahead of the player, so encoding cost is spread over the
 * playback and one guild's long speech never blocks the event loop for another's.
 */
export function startLiveSpeech(
  openPcm16: (signal: AbortSignal) => AsyncIterable<Uint8Array>,
  options: OpusFrameStreamOptions = {},
): LiveSpeech {
  const source = prefetch(openPcm16);
  const packets = opusFrameReadable(source.chunks, options);
  return {
    packets,
    synthesis: source.ended,
    cancel() {
      source.cancel();
      packets.destroy();
    },
  };
}
