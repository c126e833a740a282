import type { ActivityEvent, SpeakerActivity } from './speaker-activity.ts';

export interface EnergyActivityOptions {
  /** RMS of a voiced frame, of 32768. */
  threshold: number;
  /** Voiced time that is speech (barge-in). */
  speechMs: number;
  /** Voiced time that makes a turn. */
  turnMs: number;
  /** Silence that ends speech. */
  hangoverMs: number;
}

export const ENERGY_DEFAULTS: EnergyActivityOptions = { threshold: 400, speechMs: 120, turnMs: 400, hangoverMs: 400 };

/** Voice activity by frame energy: voiced frames add up while speech lasts; a hangover of silence ends it. */
export class EnergyActivity implements SpeakerActivity {
  readonly #options: EnergyActivityOptions;
  #voicedMs = 0;
  #lastVoicedAt: number | undefined;
  #speech = false;
  #turn = false;

  constructor(options: Partial<EnergyActivityOptions> = {}) {
    this.#options = { ...ENERGY_DEFAULTS, ...options };
  }

  frame(pcm: Int16Array, at: number): ActivityEvent | undefined {
    const ended = this.silence(at);
    if (ended) return ended;
    if (rms(pcm) < this.#options.threshold) return undefined;
    this.#lastVoicedAt = at;
    this.#voicedMs += 20;
    if (!this.#speech && this.#voicedMs >= this.#options.speechMs) {
      this.#speech = true;
      return { type: 'speech', at };
    }
    if (this.#speech && !this.#turn && this.#voicedMs >= this.#options.turnMs) {
      this.#turn = true;
      return { type: 'turn', at };
    }
    return undefined;
  }

  silence(now: number): ActivityEvent | undefined {
    if (this.#lastVoicedAt === undefined || now - this.#lastVoicedAt < this.#options.hangoverMs) return undefined;
    const event: ActivityEvent | undefined = this.#speech ? { type: 'end', at: now, turn: this.#turn } : undefined;
    this.#lastVoicedAt = undefined;
    this.#voicedMs = 0;
    this.#speech = this.#turn = false;
    return event;
  }
}

function rms(pcm: Int16Array): number {
  let sum = 0;
  for (const sample of pcm) sum += sample * sample;
  return Math.sqrt(sum / Math.max(1, pcm.length));
}
