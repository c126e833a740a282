/**
 * 👍/👎 on answers, kept in the store so that any instance can record a press: one vote per person per answer,
 * which they may change, and a running count per workspace for admins.
 */
import type { CounterHandle } from '../ops/metrics.ts';
import type { Store } from '../store/store.ts';

export type FeedbackRating = 'positive' | 'negative';

export const FEEDBACK_RATINGS: readonly FeedbackRating[] = ['positive', 'negative'];

export interface FeedbackVote {
  platform: string;
  /** The workspace (guild) the answer was given in; a DM outside any has none. */
  workspaceId?: string;
  /** The platform's id of the answer, as the button carried it. */
  answerId: string;
  userId: string;
  rating: FeedbackRating;
}

export type FeedbackOutcome = 'recorded' | 'changed' | 'unchanged';

export interface FeedbackCounts {
  positive: number;
  negative: number;
}

export interface FeedbackOptions {
  /** herald_feedback_total: one per vote cast or changed. */
  counter?: CounterHandle<{ platform: string; rating: string }>;
  /** How long a person's vote on an answer is remembered (and so can be changed rather than counted again). */
  voteTtlMs?: number;
}

/** Ids come from button values a client hands back: bounded and plain, so they make safe store keys. */
const ANSWER_ID = /^[\w.:/-]{1,200}$/;
const VOTE_TTL_MS = 180 * 24 * 3600 * 1000;
const LOCK_TTL_MS = 5000;
const LOCK_TRIES = 40;
const LOCK_RETRY_MS = 25;

export function isAnswerId(value: string): boolean {
  return ANSWER_ID.test(value);
}

function part(value: string): string {
  return encodeURIComponent(value);
}

export class AnswerFeedback {
  readonly #store: Store;
  readonly #counter: FeedbackOptions['counter'];
  readonly #voteTtlMs: number;

  constructor(store: Store, options: FeedbackOptions = {}) {
    this.#store = store;
    this.#counter = options.counter;
    this.#voteTtlMs = options.voteTtlMs ?? VOTE_TTL_MS;
  }

  /** Records a vote; a second press of the same rating changes nothing, the other rating replaces the first. */
  async record(vote: FeedbackVote): Promise<FeedbackOutcome> {
    if (!isAnswerId(vote.answerId)) throw new RangeError('not an answer id');
    const key = `feedback:vote:${part(vote.platform)}:${part(vote.workspaceId ?? '')}:${part(vote.answerId)}:${part(vote.userId)}`;
    const lock = `${key}:lock`;
    const token = await this.#lock(lock);
    try {
      const previous = await this.#store.get<FeedbackRating>(key);
      if (previous === vote.rating) return 'unchanged';
      await this.#store.set(key, vote.rating, this.#voteTtlMs);
      if (vote.workspaceId !== undefined) {
        const counts = [{ key: this.#countKey(vote.platform, vote.workspaceId, vote.rating), n: 1 }];
        if (previous) counts.push({ key: this.#countKey(vote.platform, vote.workspaceId, previous), n: -1 });
        await this.#store.incrementMany(counts);
      }
      this.#counter?.inc({ platform: vote.platform, rating: vote.rating });
      return previous ? 'changed' : 'recorded';
    } finally {
      await this.#store.releaseLock(lock, token);
    }
  }

  /** The workspace's votes as they stand (a changed vote counts once, as its latest rating). */
  async counts(platform: string, workspaceId: string): Promise<FeedbackCounts> {
    const [positive = 0, negative = 0] = await this.#store.readCounters(FEEDBACK_RATINGS.map((r) => this.#countKey(platform, workspaceId, r)));
    return { positive, negative };
  }

  #countKey(platform: string, workspaceId: string, rating: FeedbackRating): string {
    return `feedback:count:${part(platform)}:${part(workspaceId)}:${rating}`;
  }

  /** One person pressing twice at once, on two instances, must not count twice. */
  async #lock(key: string): Promise<string> {
    for (let attempt = 0; ; attempt += 1) {
      const token = await this.#store.acquireLock(key, LOCK_TTL_MS);
      if (token) return token;
      if (attempt >= LOCK_TRIES) throw new Error('feedback vote busy');
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
    }
  }
}
