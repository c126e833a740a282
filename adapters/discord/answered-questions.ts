import { EDIT_WINDOW_MS } from '../../src/conversation/replacement.ts';
import type { Store } from '../../src/store/store.ts';

/** What Herald answered a question with, for as long as an edit of the question can replace the answer. */
export interface AnsweredQuestion {
  /** The text answered: an update that leaves it as it is (a link unfurled) is no edit. */
  content: string;
  /** Herald's messages of the answer, in the question's channel. */
  messageIds: string[];
}

/** Question message id → its answer, kept EDIT_WINDOW_MS in the store. */
export class AnsweredQuestions {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  get(questionId: string): Promise<AnsweredQuestion | undefined> {
    return this.#store.get<AnsweredQuestion>(key(questionId));
  }

  set(questionId: string, answer: AnsweredQuestion): Promise<void> {
    return this.#store.set(key(questionId), answer, EDIT_WINDOW_MS);
  }
}

function key(questionId: string): string {
  return `discord:answered:${questionId}`;
}
