/** A message being answered in this process: queued, or replying. */
export interface Turn {
  messageId: string;
  /** An edit of its message replaces it: the reply stops without an error. */
  supersede(): void;
}

/** Per conversation, the messages answered in this process now, in the order they came. */
export class TurnRegistry {
  readonly #turns = new Map<string, Turn[]>();

  enter(conversation: string, turn: Turn): void {
    const turns = this.#turns.get(conversation);
    if (turns) turns.push(turn);
    else this.#turns.set(conversation, [turn]);
  }

  leave(conversation: string, turn: Turn): void {
    const turns = this.#turns.get(conversation);
    const at = turns?.indexOf(turn) ?? -1;
    if (!turns || at < 0) return;
    turns.splice(at, 1);
    if (turns.length === 0) this.#turns.delete(conversation);
  }

  newest(conversation: string): Turn | undefined {
    return this.#turns.get(conversation)?.at(-1);
  }
}
