import { deltasFromResult } from './results.ts';
import type { ChatDelta, ChatResult, ChatStream } from './types.ts';

/** A non-streamed request behind the ChatStream interface: all deltas arrive at once when the answer is complete. */
export class ResultStream implements ChatStream {
  readonly #run: (signal: AbortSignal) => Promise<ChatResult>;
  readonly #controller = new AbortController();
  readonly #callerSignal: AbortSignal | undefined;
  #pending: Promise<ChatResult> | undefined;
  #result: ChatResult | undefined;
  #stopped = false;

  constructor(run: (signal: AbortSignal) => Promise<ChatResult>, signal?: AbortSignal) {
    this.#run = run;
    this.#callerSignal = signal;
  }

  get requestId(): string | undefined {
    return this.#result?.requestId;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ChatDelta, void> {
    let result: ChatResult;
    try {
      result = await this.#start();
    } catch (error) {
      if (this.#stopped) return;
      throw error;
    }
    yield* deltasFromResult(result);
  }

  finalResult(): Promise<ChatResult> {
    return this.#start();
  }

  abort(): void {
    this.#stopped = true;
    this.#controller.abort();
  }

  #start(): Promise<ChatResult> {
    const signal = this.#callerSignal ? AbortSignal.any([this.#callerSignal, this.#controller.signal]) : this.#controller.signal;
    this.#pending ??= this.#run(signal).then((result) => (this.#result = result));
    return this.#pending;
  }
}
