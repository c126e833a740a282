import type { Core } from '../../src/core.ts';
import { HeraldError } from '../../src/errors.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { QuestionFlow } from '../../src/platform/question-flow.ts';
import type { SlackApi } from './slack-api.ts';
import type { StreamingSwitch } from './stream-part.ts';
import type { ThreadMemory } from './thread-memory.ts';
import type { UserDirectory } from './user-directory.ts';
import type { SlackHistory } from './workspace-history.ts';

/** Who Herald is in the workspace its token belongs to (auth.test). */
export interface SlackIdentity {
  teamId: string;
  botUserId: string;
  botId?: string;
  botName?: string;
}

/** Everything a Slack handler needs, built once at start. */
export interface SlackRuntime {
  core: Core;
  logger: Logger;
  api: SlackApi;
  users: UserDirectory;
  /** Channel history for the workspace features, with its short cache. */
  history: SlackHistory;
  threads: ThreadMemory;
  streaming: StreamingSwitch;
  /** The core's questions: asked, edited, deleted. */
  flow: QuestionFlow;
  identity: SlackIdentity;
  /** Runs work after the event is acknowledged; failures are logged, shutdown waits for it. */
  run(label: string, work: (signal: AbortSignal) => Promise<void>): void;
  /** Runs a question's work after the event is acknowledged; the core's flow tracks the answer for shutdown. */
  ask(label: string, work: (signal: AbortSignal) => Promise<void>): void;
}

/** The work a runtime started and has not finished, so that stopping can cancel and await it. */
export class WorkTracker {
  readonly #logger: Logger;
  readonly #track: (<T>(work: Promise<T>, label?: string) => Promise<T>) | undefined;
  readonly #running = new Set<Promise<void>>();
  readonly #stop = new AbortController();

  constructor(logger: Logger, track?: <T>(work: Promise<T>, label?: string) => Promise<T>, deadline?: AbortSignal) {
    this.#logger = logger;
    this.#track = track;
    deadline?.addEventListener('abort', () => this.#stop.abort(deadline.reason), { once: true });
  }

  get stopping(): boolean {
    return this.#stop.signal.aborted;
  }

  /** `tracked: false` for work whose owner already counts it as in flight. */
  run(label: string, work: (signal: AbortSignal) => Promise<void>, { tracked = true } = {}): void {
    if (this.stopping) return;
    const done = work(this.#stop.signal).catch((error: unknown) => {
      if (!this.#cancelled(error)) this.#logger.error({ err: error, work: label }, 'Slack work failed');
      else this.#logger.info({ work: label, reason: (error as Error).message }, 'Slack work stopped');
    });
    this.#running.add(done);
    void done.finally(() => this.#running.delete(done));
    if (tracked && this.#track) void this.#track(done, `slack ${label}`);
  }

  /** A question withdrawn, a reply replaced or shutdown's cancellation: the work was stopped, nothing failed. */
  #cancelled(error: unknown): boolean {
    return (error instanceof HeraldError && error.kind === 'cancelled') || (this.stopping && error === this.#stop.signal.reason);
  }

  /** Cancels what is still running (replies end with a short note) and waits for it to finish. */
  async stop(): Promise<void> {
    this.#stop.abort(new Error('Herald is shutting down'));
    await Promise.all([...this.#running]);
  }
}
