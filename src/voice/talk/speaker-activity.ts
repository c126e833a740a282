/** What one speaker's voice activity says at a frame, or after a gap. */
export type ActivityEvent =
  /** Voice long enough to be speech (a lower bar than a turn): Herald pauses for it. */
  | { type: 'speech'; at: number }
  /** Voiced long enough to be a turn, not a cough or an "mm-hm". */
  | { type: 'turn'; at: number }
  /** Silence for the hangover after speech; `turn` says whether it became a turn. */
  | { type: 'end'; at: number; turn: boolean };

/** Voice-activity detection for one speaker, fed 20 ms frames of 48 kHz mono and told of gaps. */
export interface SpeakerActivity {
  /** A frame heard at `at` (`performance.now()` milliseconds). */
  frame(pcm: Int16Array, at: number): ActivityEvent | undefined;
  /** Nothing was heard from the speaker until `now`: the gap is silence. */
  silence(now: number): ActivityEvent | undefined;
}

export type SpeakerActivityFactory = () => SpeakerActivity;
