import type { FvadModule } from '@echogarden/fvad-wasm';
import type { FrameClassifier, FrameKind } from '../src/voice/talk/frame-classifier.ts';
import { FRAME_SAMPLES_48K } from '../src/media/speech/opus-encoder.ts';
import { WebRtcVad } from '../src/voice/talk/webrtc-vad.ts';

/**
 * The textbook baseline: a frame is speech when its energy stands 12 dB over the noise floor (the quietest
 * frame of the last 1.5 s, as Herald's), voiced when it also crosses zero seldom (a low-pitched, not a hissing, sound).
 */
export class EnergyClassifier implements FrameClassifier {
  readonly #levels = new Float32Array(75).fill(-60);
  #next = 0;

  classify(frame: Int16Array): FrameKind {
    let squares = 0;
    let crossings = 0;
    for (let i = 0; i < FRAME_SAMPLES_48K; i++) {
      const v = frame[i]!;
      squares += v * v;
      if (i > 0 && v >= 0 !== frame[i - 1]! >= 0) crossings++;
    }
    const level = squares === 0 ? -100 : 10 * Math.log10(squares / FRAME_SAMPLES_48K / 32768 ** 2);
    this.#levels[this.#next] = level;
    this.#next = (this.#next + 1) % this.#levels.length;
    const floor = Math.min(level, ...this.#levels);
    if (level < -50 || level < floor + 12) return 'silence';
    return crossings / FRAME_SAMPLES_48K < 0.06 ? 'voiced' : 'speech';
  }

  clear(): void {}

  free(): void {}
}

/** WebRTC's detector alone: every frame it takes for voice counts as voiced. */
export class WebRtcOnlyClassifier implements FrameClassifier {
  readonly #vad: WebRtcVad;

  constructor(fvad: FvadModule, mode: 0 | 1 | 2 | 3) {
    this.#vad = new WebRtcVad(fvad, mode);
  }

  classify(frame: Int16Array): FrameKind {
    return this.#vad.isVoice(frame) ? 'voiced' : 'silence';
  }

  clear(): void {}

  free(): void {
    this.#vad.free();
  }
}
