import type { OpusDecoder } from 'opus-decoder';
import { toInt16 } from '../../../src/media/audio/normalize.ts';
import { quietly } from '../../../src/media/audio/quiet-console.ts';
import { nativeOpus, opusBackend, type NativeOpusCodec, type OpusBackend } from '../../../src/media/opus-backend.ts';
import { FRAME_SAMPLES_48K } from '../../../src/media/speech/opus-encoder.ts';

/**
 * One speaker's Opus stream decoded packet by packet to 48 kHz mono (libopus downmixes stereo packets), cut into
 * 20 ms frames. Native libopus when it loads, else the WebAssembly decoder, which needs a moment to start: packets
 * that come before it is ready are decoded once it is (at most `maxPending` of them; older ones are dropped).
 */
export class HeardOpusDecoder {
  readonly #native: NativeOpusCodec | undefined;
  #wasm: OpusDecoder<48000> | undefined;
  #pending: Buffer[] | undefined;
  readonly #maxPending: number;
  #carry: Int16Array = new Int16Array(0);
  #freed = false;
  readonly #onFrame: (pcm: Int16Array) => void;

  /** `onFrame` gets each whole 20 ms frame the packets complete. */
  constructor(onFrame: (pcm: Int16Array) => void, options: { backend?: OpusBackend; maxPending?: number } = {}) {
    this.#onFrame = onFrame;
    this.#maxPending = options.maxPending ?? 50;
    const Native = opusBackend(options.backend) === 'native' ? nativeOpus() : undefined;
    this.#native = Native ? new Native(48_000, 1) : undefined;
  }

  /** Decodes a packet and hands over each whole 20 ms frame it completes. Throws on a packet libopus rejects (the stream goes on with the next). */
  decode(packet: Buffer): void {
    if (this.#freed) return;
    if (this.#native) return this.#split(this.#decodeNative(packet));
    if (this.#wasm) return this.#split(this.#decodeWasm(this.#wasm, packet));
    if (!this.#pending) this.#startWasm();
    this.#pending!.push(packet);
    if (this.#pending!.length > this.#maxPending) this.#pending!.shift();
  }

  free(): void {
    this.#freed = true;
    this.#pending = undefined;
    this.#wasm?.free();
    this.#wasm = undefined;
  }

  #decodeNative(packet: Buffer): Int16Array {
    const pcm = this.#native!.decode(packet);
    return new Int16Array(pcm.buffer, pcm.byteOffset, pcm.byteLength >> 1);
  }

  #decodeWasm(decoder: OpusDecoder<48000>, packet: Buffer): Int16Array {
    const decoded = quietly(() => decoder.decodeFrame(packet));
    if (decoded.samplesDecoded === 0 && decoded.errors.length > 0) throw new Error(decoded.errors[0]!.message);
    return toInt16(decoded.channelData[0]!.subarray(0, decoded.samplesDecoded));
  }

  #startWasm(): void {
    this.#pending = [];
    void import('opus-decoder')
      .then(async ({ OpusDecoder }) => {
        const decoder = new OpusDecoder({ sampleRate: 48_000, channels: 1, streamCount: 1, coupledStreamCount: 0, channelMappingTable: [0] });
        await decoder.ready;
        if (this.#freed) return decoder.free();
        this.#wasm = decoder;
        for (const packet of this.#pending?.splice(0) ?? []) {
          try {
            this.#split(this.#decodeWasm(decoder, packet));
          } catch {
            // A packet libopus rejects is skipped, as decode() would.
          }
        }
      })
      .catch(() => this.free());
  }

  #split(samples: Int16Array): void {
    let all = samples;
    if (this.#carry.length > 0) {
      all = new Int16Array(this.#carry.length + samples.length);
      all.set(this.#carry);
      all.set(samples, this.#carry.length);
    }
    let at = 0;
    // Each packet's samples are fresh, so the frames may be views of them.
    for (; at + FRAME_SAMPLES_48K <= all.length; at += FRAME_SAMPLES_48K) this.#onFrame(all.subarray(at, at + FRAME_SAMPLES_48K));
    this.#carry = all.subarray(at);
  }
}
