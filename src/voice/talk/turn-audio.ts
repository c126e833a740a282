import { writeWav } from '../../media/wav.ts';
import { ASR_SAMPLE_RATE } from '../../media/audio/normalize.ts';
import { FRAME_SAMPLES_48K } from '../../media/speech/opus-encoder.ts';

/** Speech recognition needs no more than 16 kHz. */
const DECIMATION = 48_000 / ASR_SAMPLE_RATE;

/**
 * One speaker's audio around a turn: the last frames before speech began (so its first syllable is not cut),
 * then every frame until the turn ends, up to a bound. Kept in memory only while the turn lasts.
 */
export class TurnAudio {
  readonly #prerollFrames: number;
  readonly #maxFrames: number;
  #frames: Int16Array[] = [];
  #recording = false;

  constructor(options: { prerollMs: number; maxSeconds: number }) {
    this.#prerollFrames = Math.ceil(options.prerollMs / 20);
    this.#maxFrames = Math.ceil((options.maxSeconds * 1000) / 20);
  }

  get recording(): boolean {
    return this.#recording;
  }

  /** Whether the turn has reached its longest. */
  get full(): boolean {
    return this.#frames.length >= this.#maxFrames;
  }

  add(pcm: Int16Array): void {
    if (pcm.length !== FRAME_SAMPLES_48K || (this.#recording && this.full)) return;
    this.#frames.push(decimate(pcm));
    if (!this.#recording && this.#frames.length > this.#prerollFrames) this.#frames.shift();
  }

  /** Speech began: the frames before it are kept, and every frame from now on. */
  start(): void {
    this.#recording = true;
  }

  /** The turn as a 16 kHz mono WAV file; the recorder starts afresh. */
  take(): Buffer {
    const frames = this.#frames;
    this.discard();
    const samples = new Int16Array((frames.length * FRAME_SAMPLES_48K) / DECIMATION);
    frames.forEach((frame, index) => samples.set(frame, (index * FRAME_SAMPLES_48K) / DECIMATION));
    return writeWav(samples, ASR_SAMPLE_RATE, 1);
  }

  /** Drops what was heard (not a turn after all). */
  discard(): void {
    this.#frames = [];
    this.#recording = false;
  }
}

/** 48 kHz to 16 kHz, each output sample the mean of three (a plain low-pass, enough for speech). */
function decimate(pcm: Int16Array): Int16Array {
  const out = new Int16Array(FRAME_SAMPLES_48K / DECIMATION);
  for (let i = 0, at = 0; i < FRAME_SAMPLES_48K; i += DECIMATION) out[at++] = Math.round((pcm[i]! + pcm[i + 1]! + pcm[i + 2]!) / DECIMATION);
  return out;
}
