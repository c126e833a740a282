import { FRAME_SAMPLES_48K } from '../../media/speech/opus-encoder.ts';

const DECIMATION = 6;
/** The analysis runs at 8 kHz over the last 40 ms, long enough for two periods of a 60 Hz voice. */
const WINDOW = (2 * FRAME_SAMPLES_48K) / DECIMATION;
const MIN_LAG = 8000 / 400;
const MAX_LAG = Math.ceil(8000 / 60);

/**
 * What one speaker's latest frame sounds like: its level, and how periodic it is (a voice's vowels repeat
 * at the pitch; coughs, clicks, breath and room noise do not). Holds the last 40 ms at 8 kHz; allocates nothing per frame.
 */
export class FrameFeatures {
  /** RMS level of the latest frame, dB below full scale (-100 for digital silence). */
  level = -100;
  readonly #window = new Float32Array(WINDOW);
  readonly #centered = new Float32Array(WINDOW);
  readonly #energies = new Float64Array(WINDOW + 1);

  /** Analyses one frame of 960 samples. */
  push(frame: Int16Array): void {
    const half = WINDOW / 2;
    const window = this.#window;
    window.copyWithin(0, half);
    let squares = 0;
    for (let i = 0; i < half; i++) {
      let sum = 0;
      for (let k = 0; k < DECIMATION; k++) {
        const sample = frame[i * DECIMATION + k]!;
        sum += sample;
        squares += sample * sample;
      }
      window[half + i] = sum / DECIMATION;
    }
    this.level = squares === 0 ? -100 : 10 * Math.log10(squares / FRAME_SAMPLES_48K / 32768 ** 2);
  }

  /** Starts afresh, as after a long gap. */
  clear(): void {
    this.#window.fill(0);
    this.level = -100;
  }

  /**
   * How periodic the last 40 ms are: the peak normalized autocorrelation over 60–400 Hz pitch lags, near 1
   * for a steady voice, low for noise. Computed on demand (it is most of the cost).
   */
  periodicity(): number {
    const window = this.#window;
    const x = this.#centered;
    const energies = this.#energies;
    let mean = 0;
    for (let i = 0; i < WINDOW; i++) mean += window[i]!;
    mean /= WINDOW;
    energies[0] = 0;
    for (let i = 0; i < WINDOW; i++) {
      const v = window[i]! - mean;
      x[i] = v;
      energies[i + 1] = energies[i]! + v * v;
    }
    if (energies[WINDOW]! < 1e-3) return 0;
    let best = 0;
    for (let lag = MIN_LAG; lag <= MAX_LAG; lag++) {
      let dot = 0;
      for (let i = 0; i + lag < WINDOW; i++) dot += x[i]! * x[i + lag]!;
      const head = energies[WINDOW - lag]!;
      const tail = energies[WINDOW]! - energies[lag]!;
      const r = dot / Math.sqrt(head * tail + 1e-9);
      if (r > best) best = r;
    }
    return best;
  }
}
