import OpusScript from 'opusscript';
import { nativeOpus, opusBackend, type NativeOpusCodec, type OpusBackend } from '../opus-backend.ts';

// libopus CTL requests and values (opus_defines.h); both bindings pass them through unchanged.
const OPUS_SET_BITRATE = 4002;
const OPUS_SET_MAX_BANDWIDTH = 4004;
const OPUS_SET_COMPLEXITY = 4010;
const OPUS_SET_SIGNAL = 4024;
const OPUS_SIGNAL_MUSIC = 3002;
const OPUS_BANDWIDTH_SUPERWIDEBAND = 1104;
const OPUS_BANDWIDTH_FULLBAND = 1105;

/** Samples per channel in a 20 ms frame at 48 kHz. */
export const FRAME_SAMPLES_48K = 960;

/**
 * Encoder delay in 48 kHz samples: 2.5 ms of CELT lookahead plus 4 ms of delay compensation, which
 * libopus adds in the VOIP and AUDIO applications at every sample rate. A decoder's first
 * PRE_SKIP samples are therefore not the input's; Ogg Opus announces this as the pre-skip.
 */
export const PRE_SKIP = 312;

export type OpusSampleRate = 8000 | 12000 | 16000 | 24000 | 48000;

export interface OpusEncoderSettings {
  sampleRate: OpusSampleRate;
  channels: 1 | 2;
  bitrate: number;
  /** The highest audio frequency worth coding: 12 kHz (superwideband) suits 24 kHz sources. */
  maxBandwidth: 'superwideband' | 'fullband';
  complexity: number;
  /** Default: native libopus when it is installed. */
  backend?: OpusBackend;
}

interface OpusScriptHeap {
  inPCM: Uint16Array;
}

/**
 * One libopus encoder producing one packet per 20 ms frame of interleaved s16le PCM.
 *
 * Settings: the AUDIO application with the music signal hint keeps libopus in CELT mode. Its SILK and
 * hybrid modes cost about three times as much CPU (35× real time instead of 100×+ for 48 kHz mono in
 * opusscript's wasm build), while CELT at 32 kbps with the band limited to 12 kHz codes speech cleanly.
 */
export class OpusFrameEncoder {
  readonly settings: OpusEncoderSettings;
  readonly frameSamples: number;
  readonly backend: OpusBackend;
  #encoder: OpusScript | NativeOpusCodec;

  constructor(settings: OpusEncoderSettings) {
    this.settings = settings;
    this.frameSamples = settings.sampleRate / 50;
    this.backend = opusBackend(settings.backend);
    this.#encoder = this.#create();
  }

  /** Encodes exactly one frame: `frameSamples × channels` samples, s16le. */
  encode(pcm: Buffer): Buffer {
    const expected = this.frameSamples * this.settings.channels * 2;
    if (pcm.length !== expected) throw new RangeError(`Opus frame must be ${expected} bytes, got ${pcm.length}`);
    const encoder = this.#encoder;
    if (!(encoder instanceof OpusScript)) return encoder.encode(pcm);
    // opusscript keeps typed-array views on its wasm heap; when another encoder's allocation grows the
    // heap, older instances' views detach and every later encode would throw. Such an encoder is
    // replaced: the stream goes on with one frame coded from a fresh state instead of failing.
    if ((encoder as unknown as OpusScriptHeap).inPCM.length === 0) {
      encoder.delete();
      this.#encoder = this.#create();
      return (this.#encoder as OpusScript).encode(pcm, this.frameSamples);
    }
    return encoder.encode(pcm, this.frameSamples);
  }

  /** Frees the wasm memory (the native encoder is freed by the garbage collector); the encoder cannot be used afterwards. */
  delete(): void {
    if (this.#encoder instanceof OpusScript) this.#encoder.delete();
  }

  #create(): OpusScript | NativeOpusCodec {
    const { sampleRate, channels, bitrate, maxBandwidth, complexity } = this.settings;
    const Native = this.backend === 'native' ? nativeOpus() : undefined;
    const encoder = Native ? new Native(sampleRate, channels) : new OpusScript(sampleRate, channels, OpusScript.Application.AUDIO);
    const ctl = (request: number, value: number) =>
      encoder instanceof OpusScript ? encoder.encoderCTL(request, value) : encoder.applyEncoderCTL(request, value);
    // @discordjs/opus creates its encoder with the AUDIO application too.
    ctl(OPUS_SET_BITRATE, bitrate);
    ctl(OPUS_SET_SIGNAL, OPUS_SIGNAL_MUSIC);
    ctl(OPUS_SET_MAX_BANDWIDTH, maxBandwidth === 'fullband' ? OPUS_BANDWIDTH_FULLBAND : OPUS_BANDWIDTH_SUPERWIDEBAND);
    ctl(OPUS_SET_COMPLEXITY, complexity);
    return encoder;
  }
}

const warmedUp = new Set<string>();

/**
 * V8 compiles wasm functions on their first call, which makes a process's first Opus frames take
 * ~30 ms each with the wasm backend. Encoding a few frames of noise on a throwaway encoder (never the
 * stream's own: that would leave the noise in its state) moves this one-off cost before the audio arrives.
 */
export function warmUpOpusEncoder(settings: OpusEncoderSettings): void {
  const key = JSON.stringify(settings);
  if (warmedUp.has(key) || opusBackend(settings.backend) === 'native') return;
  warmedUp.add(key);
  const encoder = new OpusFrameEncoder(settings);
  const noise = Buffer.alloc(encoder.frameSamples * settings.channels * 2);
  let seed = 1;
  for (let i = 0; i < noise.length; i += 2) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    noise.writeInt16LE((seed >>> 16) - 32768, i);
  }
  try {
    for (let i = 0; i < 3; i++) encoder.encode(noise);
  } finally {
    encoder.delete();
  }
}
