import type { HeardAudio } from '../voice-link.ts';
import { TurnAudio } from './turn-audio.ts';
import type { VoiceActivity, VoiceActivityEvent } from './voice-activity.ts';

/** Frames kept from before speech was recognized, so a turn's first syllable is not lost. */
const PREROLL_MS = 500;
/** The longest turn: past it the turn ends where it is. */
const MAX_TURN_SECONDS = 30;
/** How often speakers who went quiet (sending no frames) are checked for the end of their speech. */
const SILENCE_CHECK_MS = 20;

/** What the people in a channel do, as heard. */
export interface HeardTurnsListener {
  /** A speaker's voice lasted long enough to be speech: it may be someone speaking over Herald. */
  speech(userId: string): void;
  /** It lasted long enough to be a turn. */
  turnStarted(userId: string): void;
  /** A turn's audio (16 kHz mono WAV), at its end or once it reached its longest while the speaker goes on. */
  turn(userId: string, wav: Buffer): void;
  /** A speaker's speech ended, after its turn if it was one. */
  speechEnded(userId: string): void;
}

interface Speaker {
  activity: VoiceActivity;
  audio: TurnAudio;
}

/**
 * Each speaker's audio through their own voice-activity detector into turns; a gap in someone's frames is
 * silence, checked on a timer. Holds a speaker's audio only while their turn lasts.
 */
export class HeardTurns {
  readonly #activity: () => VoiceActivity;
  readonly #clock: () => number;
  readonly #listener: HeardTurnsListener;
  readonly #speakers = new Map<string, Speaker>();
  #silenceCheck: NodeJS.Timeout | undefined;

  /** `activity` makes a new speaker's detector; `clock` is the one heard frames are stamped with. */
  constructor(activity: () => VoiceActivity, clock: () => number, listener: HeardTurnsListener) {
    this.#activity = activity;
    this.#clock = clock;
    this.#listener = listener;
  }

  start(): void {
    this.#silenceCheck = setInterval(() => this.#checkSilence(), SILENCE_CHECK_MS);
    this.#silenceCheck.unref();
  }

  /** Stops the silence checks and frees every speaker's detector. */
  stop(): void {
    clearInterval(this.#silenceCheck);
    for (const speaker of this.#speakers.values()) speaker.activity.free();
    this.#speakers.clear();
  }

  heard(audio: HeardAudio): void {
    let speaker = this.#speakers.get(audio.userId);
    if (!speaker) {
      speaker = { activity: this.#activity(), audio: new TurnAudio({ prerollMs: PREROLL_MS, maxSeconds: MAX_TURN_SECONDS }) };
      this.#speakers.set(audio.userId, speaker);
    }
    speaker.audio.add(audio.pcm);
    this.#onActivity(audio.userId, speaker, speaker.activity.frame(audio.pcm, audio.at));
    if (speaker.audio.recording && speaker.audio.full) {
      // A turn at its longest is taken as it is; what follows is recorded as the next.
      this.#listener.turn(audio.userId, speaker.audio.take());
      speaker.audio.start();
    }
  }

  #checkSilence(): void {
    const now = this.#clock();
    for (const [userId, speaker] of this.#speakers) this.#onActivity(userId, speaker, speaker.activity.silence(now));
  }

  #onActivity(userId: string, speaker: Speaker, event: VoiceActivityEvent | undefined): void {
    if (!event) return;
    if (event.type === 'speech') {
      speaker.audio.start();
      this.#listener.speech(userId);
    } else if (event.type === 'turn') {
      this.#listener.turnStarted(userId);
    } else {
      if (event.turn && speaker.audio.recording) this.#listener.turn(userId, speaker.audio.take());
      else speaker.audio.discard();
      this.#listener.speechEnded(userId);
    }
  }
}
