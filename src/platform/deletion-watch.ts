/**
 * The messages replies in progress depend on — each question being answered and the messages its answer has
 * posted — and what to do when the platform says one was deleted. Keys are the platform's message keys.
 */
export class DeletionWatch {
  readonly #watched = new Map<string, () => void>();

  /** Calls `onDeleted` once if the message is deleted before `unwatch`. */
  watch(messageKey: string, onDeleted: () => void): void {
    this.#watched.set(messageKey, onDeleted);
  }

  unwatch(messageKeys: Iterable<string>): void {
    for (const key of messageKeys) this.#watched.delete(key);
  }

  deleted(messageKeys: Iterable<string>): void {
    for (const key of messageKeys) {
      const onDeleted = this.#watched.get(key);
      if (!onDeleted) continue;
      this.#watched.delete(key);
      onDeleted();
    }
  }
}
