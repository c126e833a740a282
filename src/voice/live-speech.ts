import type { Readable } from 'node:stream';
import { opusFrameReadable, opusFrameStream, type OpusFrameStreamOptions } from '../media/speech/opus-frame-stream.ts';
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
export function startLiveSpeech(openPcm16: (signal: AbortSignal) => AsyncIterable<Uint8Array>, options: OpusFrameStreamOptions = {}): LiveSpeech {
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

let warmedUp: Promise<void> | undefined;

/**
 * Runs 200 ms of quiet noise through a throwaway pipeline once per process, so the JIT has compiled the
 * joiner, upsampler and frame packing (and V8 the Opus wasm) before the first real speech: a cold first
 * packet takes about 30 ms longer. Call it while a voice connection is being made.
 */
export function warmUpLiveSpeech(options: OpusFrameStreamOptions = {}): Promise<void> {
  warmedUp ??= (async () => {
    const noise = Buffer.alloc((24_000 * 2) / 5);
    for (let at = 0; at < noise.length; at += 2) noise.writeInt16LE(Math.round((Math.random() - 0.5) * 200), at);
    for await (const packet of opusFrameStream(
      (async function* () {
        yield noise;
      })(),
      options,
    ))
      void packet;
  })();
  return warmedUp;
}
