import { Readable } from 'node:stream';
import type { OpusBackend } from '../opus-backend.ts';
import { HalfBandUpsampler } from './half-band-upsampler.ts';
import { FRAME_SAMPLES_48K, OpusFrameEncoder, PRE_SKIP, warmUpOpusEncoder, type OpusEncoderSettings } from './opus-encoder.ts';
import { joinPcm16 } from './pcm16-joiner.ts';
import { toInt16 } from './samples.ts';

export interface OpusFrameStreamOptions {
  /** Bits per second for the stereo stream; Discord's default voice channel bitrate is 64 kbps. */
  bitrate?: number;
  /** libopus complexity 0–10. */
  complexity?: number;
  /** Called if the byte stream ends halfway through a sample (that half sample is dropped). */
  onTruncatedSample?: () => void;
  /** Default: native libopus when it is installed. */
  backend?: OpusBackend;
}

const FRAME_BYTES = FRAME_SAMPLES_48K * 2 * 2; // stereo s16le

/**
 * Streamed speech (pcm16, 24 kHz mono, chunks of any byte length) to the Opus packets a Discord voice
 * connection sends: 48 kHz stereo, one packet per 20 ms. A packet leaves as soon as its 20 ms of audio
 * (plus 1 ms of resampler lookahead) has arrived. At the end, the last frame is padded with silence,
 * and one more silent frame follows if needed so the encoder's 6.5 ms lookahead is played out too.
 */
export async function* opusFrameStream(
  pcm16Chunks: AsyncIterable<Uint8Array>,
  options: OpusFrameStreamOptions = {},
): AsyncGenerator<Buffer, void, undefined> {
  const settings: OpusEncoderSettings = {
    sampleRate: 48000,
    channels: 2,
    bitrate: options.bitrate ?? 64_000,
    maxBandwidth: 'superwideband',
    complexity: options.complexity ?? 10,
    backend: options.backend,
  };
  warmUpOpusEncoder(settings); // runs while the player waits for the first chunk
  const encoder = new OpusFrameEncoder(settings);
  const upsampler = new HalfBandUpsampler();
  const frame = Buffer.alloc(FRAME_BYTES);
  const view = new DataView(frame.buffer, frame.byteOffset, FRAME_BYTES);
  let filled = 0;

  function* frames(samples: Float32Array): Generator<Buffer> {
    for (let i = 0; i < samples.length; i++) {
      const value = toInt16(samples[i]!);
      view.setInt16(filled, value, true);
      view.setInt16(filled + 2, value, true);
      filled += 4;
      if (filled === FRAME_BYTES) {
        yield encoder.encode(frame);
        filled = 0;
      }
    }
  }

  try {
    const joined = joinPcm16(pcm16Chunks, { onTruncatedSample: options.onTruncatedSample });
    for await (const samples of joined) yield* frames(upsampler.push(samples));
    yield* frames(upsampler.flush());
    const unfinished = filled / 4;
    if (unfinished > 0) yield encoder.encode(frame.fill(0, filled));
    const silenceSent = unfinished > 0 ? FRAME_SAMPLES_48K - unfinished : 0;
    if (silenceSent < PRE_SKIP) yield encoder.encode(frame.fill(0));
  } finally {
    encoder.delete();
  }
}

/**
 * The same packets as an object-mode Readable, the shape `createAudioResource(stream, { inputType:
 * StreamType.Opus })` from @discordjs/voice plays. Destroying it stops reading the source.
 */
export function opusFrameReadable(pcm16Chunks: AsyncIterable<Uint8Array>, options: OpusFrameStreamOptions = {}): Readable {
  return Readable.from(opusFrameStream(pcm16Chunks, options), { objectMode: true, highWaterMark: 1 });
}
