import type { FvadModule } from '@echogarden/fvad-wasm';
import { FrameFeatures } from './frame-features.ts';
import { WebRtcVad } from './webrtc-vad.ts';

/** What one 20 ms frame of a speaker holds. */
export type FrameKind = 'silence' | 'speech' | 'voiced';

/** Tells, frame by frame, what one speaker's audio holds; keeps that speaker's state (noise, last frame). */
export interface FrameClassifier {
  /** `voiced` is speech with a pitch (vowels, nasals); `speech` is any other speech sound (fricatives, onsets). */
  classify(frame: Int16Array): FrameKind;
  /** Forgets the recent past, after a gap in the frames. */
  clear(): void;
  /** Releases what it holds; it cannot be used afterwards. */
  free(): void;
}

/** Below this level nothing counts as speech, whatever WebRTC's detector says (its hangover tails, breath). */
const MIN_SPEECH_DB = -50;
/** Speech stands this far above the speaker's noise floor. */
const SPEECH_ABOVE_FLOOR_DB = 6;
/** A frame whose pitch correlation reaches this is voiced: speech over 0.8 through vowels, coughs and noise mostly below 0.5. */
const VOICED_CORRELATION = 0.6;
/** The noise floor is the quietest frame of the last 1.5 s (the pauses between words), a quiet room's before that. */
const FLOOR_FRAMES = 75;
const QUIET_ROOM_DB = -60;

/**
 * Herald's classifier: WebRTC's detector says whether a frame sounds like speech, a level gate above the
 * speaker's noise floor drops its hangover frames and faint noise, and a pitch check marks the voiced frames
 * that coughs, clicks and noise bursts lack. Chosen by measurement (bench/voice-talk.bench.ts).
 */
export class VoiceFrameClassifier implements FrameClassifier {
  readonly #vad: WebRtcVad;
  readonly #features = new FrameFeatures();
  readonly #levels = new Float32Array(FLOOR_FRAMES).fill(QUIET_ROOM_DB);
  #next = 0;

  constructor(fvad: FvadModule) {
    this.#vad = new WebRtcVad(fvad, 3);
  }

  classify(frame: Int16Array): FrameKind {
    const features = this.#features;
    features.push(frame);
    const level = features.level;
    const levels = this.#levels;
    levels[this.#next] = level;
    this.#next = (this.#next + 1) % FLOOR_FRAMES;
    let floor = level;
    for (let i = 0; i < FLOOR_FRAMES; i++) if (levels[i]! < floor) floor = levels[i]!;
    const voice = this.#vad.isVoice(frame);
    if (!voice || level < MIN_SPEECH_DB || level < floor + SPEECH_ABOVE_FLOOR_DB) return 'silence';
    return features.periodicity() >= VOICED_CORRELATION ? 'voiced' : 'speech';
  }

  clear(): void {
    this.#features.clear();
  }

  free(): void {
    this.#vad.free();
  }
}
