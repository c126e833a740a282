import { type FrameClassifier, VoiceFrameClassifier } from './frame-classifier.ts';
import { FRAME_SAMPLES_48K } from '../../media/speech/opus-encoder.ts';
import { loadWebRtcVad } from './webrtc-vad.ts';

const FRAME_MS = 20;
/** A gap longer than this between two frames breaks the pitch analysis (the frames are not contiguous). */
const CONTIGUOUS_MS = 3 * FRAME_MS;
/** Unvoiced speech (a fricative, a plosive) counts this close to a voiced frame, before or after it. */
const UNVOICED_REACH_MS = 200;

export interface VoiceActivityOptions {
  /** Silence after the last speech frame that ends someone's speech. */
  hangoverMs: number;
  /** Voiced speech that may be an interruption: it pauses Herald. More than one frame. */
  speechMs: number;
  /** Voiced speech that makes a turn (more than `speechMs`); less is a cough, a click or an "mm-hm". */
  turnMs: number;
}

/**
 * Measured on recorded speech in bench/voice-talk.bench.ts: 400 ms of silence ends a turn without cutting
 * the pauses inside a sentence, 80 ms of voice pauses Herald well within the 300 ms barge-in budget, and
 * 400 ms of voice is more than an "mm-hm" holds (coughs and clicks hold none) yet less than a short question.
 */
export const DEFAULT_VOICE_ACTIVITY: VoiceActivityOptions = { hangoverMs: 400, speechMs: 80, turnMs: 400 };

/**
 * Times are the caller's clock (`HeardAudio.at`, `performance.now()` milliseconds); `startedAt` is when the
 * speech began. The thresholds are apart by more than a frame, so one frame or one gap brings one event at most.
 */
export type VoiceActivityEvent =
  /** The voice lasted long enough to be speech: pause whatever Herald says. */
  | { type: 'speech'; at: number; startedAt: number }
  /** It lasted long enough to be a turn. */
  | { type: 'turn'; at: number; startedAt: number }
  /** It ended a hangover after its last speech frame; `turn` is false when it never became one (resume Herald). */
  | { type: 'end'; at: number; startedAt: number; lastSpeechAt: number; turn: boolean };

/**
 * One speaker's speech, frame by frame. It starts with a voiced frame (taking in the unvoiced speech just
 * before it), is long enough to interrupt and then to be a turn when enough of it was voiced, and ends a
 * hangover after its last speech frame, frames that never came counting as silence. Unvoiced frames count
 * only near voiced ones, so noise that sounds like a fricative neither starts speech nor keeps it going.
 * Constant memory.
 */
export class VoiceActivity {
  readonly #classifier: FrameClassifier;
  readonly #options: VoiceActivityOptions;
  #lastFrameAt = Number.NEGATIVE_INFINITY;
  /** While silent, the first of the unvoiced speech frames just before now. */
  #leadAt: number | undefined;
  /** The start of the current stretch of speech, or undefined while silent. */
  #startedAt: number | undefined;
  #lastVoicedAt = 0;
  #lastSpeechAt = 0;
  #voicedMs = 0;
  #speech = false;
  #turn = false;

  constructor(classifier: FrameClassifier, options: VoiceActivityOptions = DEFAULT_VOICE_ACTIVITY) {
    this.#classifier = classifier;
    this.#options = options;
  }

  /** One 20 ms frame (960 samples, 48 kHz mono s16) heard at `at`; a frame of another length is silence. */
  frame(pcm: Int16Array, at: number): VoiceActivityEvent | undefined {
    const ended = this.silence(at);
    if (at - this.#lastFrameAt > CONTIGUOUS_MS) {
      this.#classifier.clear();
      this.#leadAt = undefined;
    }
    this.#lastFrameAt = at;
    const kind = pcm.length === FRAME_SAMPLES_48K ? this.#classifier.classify(pcm) : 'silence';
    if (kind === 'silence') {
      this.#leadAt = undefined;
    } else if (kind === 'speech') {
      if (this.#startedAt === undefined) this.#leadAt ??= at;
      else if (at - this.#lastVoicedAt <= UNVOICED_REACH_MS) this.#lastSpeechAt = at;
    } else {
      return this.#voiced(at) ?? ended;
    }
    return ended;
  }

  /** Nothing was heard until `now`: speech whose hangover has passed ends (at the hangover's end, however late this is called). */
  silence(now: number): VoiceActivityEvent | undefined {
    const startedAt = this.#startedAt;
    if (startedAt === undefined || now - this.#lastSpeechAt < this.#options.hangoverMs) return undefined;
    this.#startedAt = undefined;
    if (!this.#speech) return undefined;
    this.#speech = false;
    const lastSpeechAt = this.#lastSpeechAt;
    return { type: 'end', at: lastSpeechAt + this.#options.hangoverMs, startedAt, lastSpeechAt, turn: this.#turn };
  }

  /** Releases the detector's memory now rather than when it is collected; it cannot be used afterwards. */
  free(): void {
    this.#classifier.free();
  }

  #voiced(at: number): VoiceActivityEvent | undefined {
    if (this.#startedAt === undefined) {
      this.#startedAt = Math.max(this.#leadAt ?? at, at - UNVOICED_REACH_MS);
      this.#leadAt = undefined;
      this.#voicedMs = 0;
      this.#speech = false;
      this.#turn = false;
    }
    this.#lastVoicedAt = at;
    this.#lastSpeechAt = at;
    this.#voicedMs += FRAME_MS;
    const startedAt = this.#startedAt;
    if (!this.#speech && this.#voicedMs >= this.#options.speechMs) {
      this.#speech = true;
      return { type: 'speech', at, startedAt };
    }
    if (!this.#turn && this.#voicedMs >= this.#options.turnMs) {
      this.#turn = true;
      return { type: 'turn', at, startedAt };
    }
    return undefined;
  }
}

/**
 * Loads WebRTC's detector (WebAssembly, once per process) and returns a maker of Herald's detectors, one per
 * speaker, with `options` over the measured defaults.
 */
export async function loadVoiceActivity(options: Partial<VoiceActivityOptions> = {}): Promise<() => VoiceActivity> {
  const fvad = await loadWebRtcVad();
  const merged = { ...DEFAULT_VOICE_ACTIVITY, ...options };
  return () => new VoiceActivity(new VoiceFrameClassifier(fvad), merged);
}
