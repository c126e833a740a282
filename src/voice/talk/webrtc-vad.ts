import loadFvad, { type FvadModule } from '@echogarden/fvad-wasm';
import { HeraldError } from '../../errors.ts';
import { FRAME_SAMPLES_48K } from '../../media/speech/opus-encoder.ts';

const SAMPLE_RATE = 48_000;

let module: Promise<FvadModule> | undefined;

/** A detector nobody freed gives its WebAssembly memory back when it is collected. */
const unfreed = new FinalizationRegistry<{ fvad: FvadModule; instance: number; frame: number }>(({ fvad, instance, frame }) => {
  fvad._fvad_free(instance);
  fvad._free(frame);
});

/** Loads the WebAssembly module (20 KB) once per process; detectors can be made once it has loaded. */
export function loadWebRtcVad(): Promise<FvadModule> {
  module ??= loadFvad();
  return module;
}

/**
 * WebRTC's voice-activity detector (libfvad) for one stream of 20 ms 48 kHz frames: it adapts to its stream's
 * noise, so each speaker needs their own. Holds a few KB of WebAssembly memory until freed or collected.
 */
export class WebRtcVad {
  readonly #fvad: FvadModule;
  #instance: number;
  readonly #frame: number;

  /** `mode`: WebRTC's aggressiveness, 0 (takes most noise for voice) to 3 (least). */
  constructor(fvad: FvadModule, mode: 0 | 1 | 2 | 3) {
    this.#fvad = fvad;
    this.#instance = fvad._fvad_new();
    this.#frame = fvad._malloc(FRAME_SAMPLES_48K * 2);
    if (!this.#instance || !this.#frame) throw new HeraldError('WebRTC VAD: out of WebAssembly memory', { code: 'vad_memory', kind: 'internal' });
    fvad._fvad_set_sample_rate(this.#instance, SAMPLE_RATE);
    fvad._fvad_set_mode(this.#instance, mode);
    unfreed.register(this, { fvad, instance: this.#instance, frame: this.#frame }, this);
  }

  /** Whether one frame of 960 samples holds voice. */
  isVoice(frame: Int16Array): boolean {
    // The heap view is re-read each time: it is replaced whenever the WebAssembly memory grows.
    this.#fvad.HEAP16.set(frame, this.#frame >> 1);
    return this.#fvad._fvad_process(this.#instance, this.#frame, FRAME_SAMPLES_48K) === 1;
  }

  /** Releases its memory; it cannot be used afterwards. */
  free(): void {
    if (!this.#instance) return;
    unfreed.unregister(this);
    this.#fvad._fvad_free(this.#instance);
    this.#fvad._free(this.#frame);
    this.#instance = 0;
  }
}
