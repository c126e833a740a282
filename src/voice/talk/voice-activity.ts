import type { HeardAudio } from '../voice-link.ts';
import { type FrameClassifier, VoiceFrameClassifier } from './frame-classifier.ts';
import { FRAME_SAMPLES } from './frame-features.ts';
import { loadWebRtcVad } from './webrtc-vad.ts';

const FRAME_MS = 20;
/** A gap longer than this between two frames breaks the pitch analysis (the frames are not contiguous). */
const CONTIGUOUS_MS = 3 * FRAME_MS;
/** Unvoiced speech (a fricative, a plosive) counts this close to a voiced frame, before or after it. */
const UNVOICED_REACH_MS = 200;

export interface VoiceActivityOptions {
  /** Silence after the last speech frame that ends someone's speech. */
  hangoverMs: number;
  /** Voiced speech that may be an interruption: it pauses Herald. */
  bargeInMs: number;
  /** Voiced speech that makes a turn; less is a cough, a click or an "mm-hm". */
  turnMs: number;
  /** Speakers followed at once; past it the one heard least recently is forgotten. */
  maxSpeakers: number;
}

/**
 * Measured on recorded speech in bench/voice-talk.bench.ts: 400 ms of silence ends a turn without cutting
 * the pauses inside a sentence, 80 ms of voice pauses Herald well within the 300 ms barge-in budget, and
 * 400 ms of voice is more than an "mm-hm" holds (coughs and clicks hold none) yet less than a short question.
 */
export const DEFAULT_VOICE_ACTIVITY: VoiceActivityOptions = { hangoverMs: 400, bargeInMs: 80, turnMs: 400, maxSpeakers: 50 };

/** Times are `performance.now()` milliseconds, as in `HeardAudio.at`. */
export type VoiceActivityEvent =
  /** Someone's voice lasted long enough to be speech: pause whatever Herald says. */
  | { type: 'barge-in'; userId: string; startedAt: number; at: number }
  /** It lasted long enough to be a turn. */
  | { type: 'turn'; userId: string; startedAt: number; at: number }
  /** Their speech ended after the hangover; `turn` is false when it never became one (resume Herald). */
  | { type: 'end'; userId: string; startedAt: number; lastSpeechAt: number; at: number; turn: boolean };

/**
 * One speaker's speech, frame by frame. It starts with a voiced frame (taking in the unvoiced speech just
 * before it), is long enough to interrupt and then to be a turn when enough of it was voiced, and ends a
 * hangover after its last speech frame, frames that never came counting as silence. Unvoiced frames count
 * only near voiced ones, so noise that sounds like a fricative neither starts speech nor keeps it going.
 * Constant memory.
 */
export class SpeakerActivity {
  readonly #userId: string;
  readonly #classifier: FrameClassifier;
  readonly #options: VoiceActivityOptions;
  readonly #onEvent: (event: VoiceActivityEvent) => void;
  #lastFrameAt = Number.NEGATIVE_INFINITY;
  /** While silent, the first of the unvoiced speech frames just before now. */
  #leadAt: number | undefined;
  /** The start of the current stretch of speech, or undefined while silent. */
  #startedAt: number | undefined;
  #lastVoicedAt = 0;
  #lastSpeechAt = 0;
  #voicedMs = 0;
  #bargedIn = false;
  #turn = false;

  constructor(userId: string, classifier: FrameClassifier, options: VoiceActivityOptions, onEvent: (event: VoiceActivityEvent) => void) {
    this.#userId = userId;
    this.#classifier = classifier;
    this.#options = options;
    this.#onEvent = onEvent;
  }

  /** When the last frame arrived. */
  get lastFrameAt(): number {
    return this.#lastFrameAt;
  }

  /** Whether this speaker is in a stretch of speech that has reached the barge-in threshold and not ended. */
  get speaking(): boolean {
    return this.#bargedIn;
  }

  /** When their speech ends if no more speech comes, or undefined while silent. */
  get deadline(): number | undefined {
    return this.#startedAt === undefined ? undefined : this.#lastSpeechAt + this.#options.hangoverMs;
  }

  /** One 20 ms frame (960 samples, 48 kHz mono s16) that arrived at `at`; a frame of another length is silence. */
  hear(frame: Int16Array, at: number): void {
    this.advance(at);
    if (at - this.#lastFrameAt > CONTIGUOUS_MS) {
      this.#classifier.clear();
      this.#leadAt = undefined;
    }
    this.#lastFrameAt = at;
    const kind = frame.length === FRAME_SAMPLES ? this.#classifier.classify(frame) : 'silence';
    if (kind === 'silence') {
      this.#leadAt = undefined;
    } else if (kind === 'speech') {
      if (this.#startedAt === undefined) this.#leadAt ??= at;
      else if (at - this.#lastVoicedAt <= UNVOICED_REACH_MS) this.#lastSpeechAt = at;
    } else {
      this.#voiced(at);
    }
  }

  /** It is now `now`: speech whose hangover has passed ends (at the hangover's end, however late this is called). */
  advance(now: number): void {
    const startedAt = this.#startedAt;
    if (startedAt === undefined || now - this.#lastSpeechAt < this.#options.hangoverMs) return;
    this.#startedAt = undefined;
    if (!this.#bargedIn) return;
    this.#bargedIn = false;
    const lastSpeechAt = this.#lastSpeechAt;
    this.#onEvent({ type: 'end', userId: this.#userId, startedAt, lastSpeechAt, at: lastSpeechAt + this.#options.hangoverMs, turn: this.#turn });
  }

  free(): void {
    this.#classifier.free();
  }

  #voiced(at: number): void {
    if (this.#startedAt === undefined) {
      this.#startedAt = Math.max(this.#leadAt ?? at, at - UNVOICED_REACH_MS);
      this.#leadAt = undefined;
      this.#voicedMs = 0;
      this.#bargedIn = false;
      this.#turn = false;
    }
    this.#lastVoicedAt = at;
    this.#lastSpeechAt = at;
    this.#voicedMs += FRAME_MS;
    const startedAt = this.#startedAt;
    if (!this.#bargedIn && this.#voicedMs >= this.#options.bargeInMs) {
      this.#bargedIn = true;
      this.#onEvent({ type: 'barge-in', userId: this.#userId, startedAt, at });
    }
    if (!this.#turn && this.#voicedMs >= this.#options.turnMs) {
      this.#turn = true;
      this.#onEvent({ type: 'turn', userId: this.#userId, startedAt, at });
    }
  }
}

/**
 * The speech of everyone heard in one voice channel, each speaker on their own: two people talking at once
 * are two stretches of speech. Feed it every `HeardAudio` frame, and call `advance()` at `deadline` (nothing
 * arrives while people are silent, so only the caller's clock can end their speech).
 */
export class VoiceActivity {
  readonly #speakers = new Map<string, SpeakerActivity>();
  readonly #newClassifier: () => FrameClassifier;
  readonly #options: VoiceActivityOptions;
  readonly #onEvent: (event: VoiceActivityEvent) => void;

  constructor(newClassifier: () => FrameClassifier, onEvent: (event: VoiceActivityEvent) => void, options: VoiceActivityOptions) {
    this.#newClassifier = newClassifier;
    this.#onEvent = onEvent;
    this.#options = options;
  }

  /** With Herald's classifier, once its WebAssembly has loaded. */
  static async create(onEvent: (event: VoiceActivityEvent) => void, options: Partial<VoiceActivityOptions> = {}): Promise<VoiceActivity> {
    const fvad = await loadWebRtcVad();
    return new VoiceActivity(() => new VoiceFrameClassifier(fvad), onEvent, { ...DEFAULT_VOICE_ACTIVITY, ...options });
  }

  hear(audio: HeardAudio): void {
    let speaker = this.#speakers.get(audio.userId);
    if (!speaker) {
      if (this.#speakers.size >= this.#options.maxSpeakers) this.#forgetQuietest();
      speaker = new SpeakerActivity(audio.userId, this.#newClassifier(), this.#options, this.#onEvent);
      this.#speakers.set(audio.userId, speaker);
    }
    speaker.hear(audio.pcm, audio.at);
  }

  /** Ends the speech of everyone whose hangover has passed by `now`. */
  advance(now: number): void {
    for (const speaker of this.#speakers.values()) speaker.advance(now);
  }

  /** The earliest time someone's speech ends if they stay silent, or undefined when nobody is speaking. */
  get deadline(): number | undefined {
    let earliest: number | undefined;
    for (const speaker of this.#speakers.values()) {
      const deadline = speaker.deadline;
      if (deadline !== undefined && (earliest === undefined || deadline < earliest)) earliest = deadline;
    }
    return earliest;
  }

  /** Whether anyone (or `userId`) is speaking: past the barge-in threshold and not yet ended. */
  speaking(userId?: string): boolean {
    if (userId !== undefined) return this.#speakers.get(userId)?.speaking ?? false;
    for (const speaker of this.#speakers.values()) if (speaker.speaking) return true;
    return false;
  }

  /** Stops following someone (they left the channel); their speech ends without an event. */
  forget(userId: string): void {
    this.#speakers.get(userId)?.free();
    this.#speakers.delete(userId);
  }

  /** Releases every speaker's detector. */
  close(): void {
    for (const speaker of this.#speakers.values()) speaker.free();
    this.#speakers.clear();
  }

  #forgetQuietest(): void {
    let quietest: [string, SpeakerActivity] | undefined;
    for (const entry of this.#speakers) if (!quietest || entry[1].lastFrameAt < quietest[1].lastFrameAt) quietest = entry;
    if (quietest) this.forget(quietest[0]);
  }
}
