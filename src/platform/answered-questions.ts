import type { ConversationKey } from '../conversation/types.ts';
import type { Citation } from '../service/types.ts';
import type { Store } from '../store/store.ts';

/** What Herald answered a question with, for an edit of it to replace and a deletion of it to forget. */
export interface AnsweredQuestion {
  /** The text answered: an update that leaves it as it is (a link unfurled) is no edit. */
  text: string;
  /** The platform keys of Herald's messages of the answer. */
  answerKeys: string[];
  /** Where the exchange it started is remembered, once the question was read. */
  conversation?: ConversationKey;
  messageId?: string;
  /** Who asked: they, or someone who may moderate there, may press the answer's controls. */
  askerId?: string;
  /** The answer's versions, oldest first, once one was written: Regenerate adds one, ◀ ▶ flip between them. */
  versions?: AnswerVersion[];
  /** Index in `versions` of the one shown. */
  shown?: number;
  /** The shown answer was stopped by its asker, so it never entered the conversation's memory. */
  stopped?: boolean;
  /** Continuations asked for so far (their exchanges are remembered under their own ids). */
  continued?: number;
}

export interface AnswerVersion {
  text: string;
  /** The sources listed under it. */
  citations?: Citation[];
  /** The service cut it short: Continue is offered while it is the one shown. */
  cut: boolean;
}

/** Question key → its answer, kept as long as the conversation's history. */
export class AnsweredQuestions {
  readonly #store: Store;
  readonly #platform: string;
  readonly #ttlMs: number;

  constructor(store: Store, platform: string, ttlMs: number) {
    this.#store = store;
    this.#platform = platform;
    this.#ttlMs = ttlMs;
  }

  get(questionKey: string): Promise<AnsweredQuestion | undefined> {
    return this.#store.get<AnsweredQuestion>(this.#key(questionKey));
  }

  set(questionKey: string, answer: AnsweredQuestion): Promise<void> {
    return this.#store.set(this.#key(questionKey), answer, this.#ttlMs);
  }

  async delete(questionKey: string): Promise<void> {
    await this.#store.delete(this.#key(questionKey));
  }

  #key(questionKey: string): string {
    return `answered:${this.#platform}:${questionKey}`;
  }
}
