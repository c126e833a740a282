/**
 * Threads Herald has replied in: later messages there are follow-ups it answers without a mention. The newest
 * message it answered there is kept too, so reading the thread again can start after it.
 */
import type { PlatformState } from '../../src/platform/platform-state.ts';

function key(teamId: string, channel: string, threadTs: string): string {
  return `slack:thread:${teamId}:${channel}:${threadTs}`;
}

interface Remembered {
  answeredTs?: string;
}

export class ThreadMemory {
  readonly #store: PlatformState;
  readonly #ttlMs: number;

  /** `ttlMs`: as long as the conversation's history is kept; after that a mention starts afresh. */
  constructor(store: PlatformState, ttlMs: number) {
    this.#store = store;
    this.#ttlMs = ttlMs;
  }

  /** `answeredTs`: the message Herald has just answered there (none for a command's answer). */
  remember(teamId: string, channel: string, threadTs: string, answeredTs?: string): Promise<void> {
    const value: Remembered = answeredTs ? { answeredTs } : {};
    return this.#store.set(key(teamId, channel, threadTs), value, this.#ttlMs);
  }

  async has(teamId: string, channel: string, threadTs: string): Promise<boolean> {
    return (await this.#store.get(key(teamId, channel, threadTs))) !== undefined;
  }

  /** The message Herald last answered in the thread, when it is known. */
  async lastAnswered(teamId: string, channel: string, threadTs: string): Promise<string | undefined> {
    const value = await this.#store.get<unknown>(key(teamId, channel, threadTs));
    const answeredTs = typeof value === 'object' && value !== null ? (value as Remembered).answeredTs : undefined;
    return typeof answeredTs === 'string' ? answeredTs : undefined;
  }
}
