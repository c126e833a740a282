/** The replies this instance is writing, by question key: where a press of a Stop button finds its reply. */
export interface LiveReply {
  /** Who asked: the one who may stop it besides workspace admins. */
  askerId: string;
  stop(): void;
}

export class LiveReplies {
  readonly #replies = new Map<string, LiveReply>();

  /** Registers a reply being written; the returned function forgets it (and only it). */
  add(questionKey: string, reply: LiveReply): () => void {
    this.#replies.set(questionKey, reply);
    return () => {
      if (this.#replies.get(questionKey) === reply) this.#replies.delete(questionKey);
    };
  }

  get(questionKey: string): LiveReply | undefined {
    return this.#replies.get(questionKey);
  }
}
