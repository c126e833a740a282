import OpusScript from 'opusscript';
import { nativeOpus, type NativeOpusCodec } from '../../../src/media/opus-backend.ts';
import { SAMPLES_PER_FRAME } from './protocol.ts';

// libopus CTL requests (opus_defines.h).
const OPUS_SET_APPLICATION = 4000;
const OPUS_SET_BITRATE = 4002;
const OPUS_APPLICATION_VOIP = 2048;
/** Discord's default voice channel bitrate. */
const CLIENT_BITRATE = 64_000;

/**
 * A Discord client's microphone encoder: 48 kHz stereo Opus in the VOIP application (SILK and hybrid modes for
 * speech), 20 ms frames. Native libopus when it is installed, else opusscript's WebAssembly build.
 */
export class ClientOpusEncoder {
  readonly #encoder: NativeOpusCodec | OpusScript;

  constructor() {
    const Native = nativeOpus();
    if (Native) {
      const native = new Native(48_000, 2);
      native.applyEncoderCTL(OPUS_SET_APPLICATION, OPUS_APPLICATION_VOIP);
      native.applyEncoderCTL(OPUS_SET_BITRATE, CLIENT_BITRATE);
      this.#encoder = native;
    } else {
      const wasm = new OpusScript(48_000, 2, OpusScript.Application.VOIP);
      wasm.encoderCTL(OPUS_SET_BITRATE, CLIENT_BITRATE);
      this.#encoder = wasm;
    }
  }

  /** One 20 ms frame of mono samples (shorter input is padded with silence), sent on both channels. */
  encode(mono: Int16Array): Buffer {
    const stereo = Buffer.alloc(SAMPLES_PER_FRAME * 4);
    for (let index = 0; index < Math.min(mono.length, SAMPLES_PER_FRAME); index++) {
      stereo.writeInt16LE(mono[index]!, index * 4);
      stereo.writeInt16LE(mono[index]!, index * 4 + 2);
    }
    const encoder = this.#encoder;
    return encoder instanceof OpusScript ? Buffer.from(encoder.encode(stereo, SAMPLES_PER_FRAME)) : encoder.encode(stereo);
  }

  delete(): void {
    if (this.#encoder instanceof OpusScript) this.#encoder.delete();
  }
}
