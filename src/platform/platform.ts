/**
 * The contract between the core and a chat platform. An adapter only translates: it turns the platform's events
 * into calls on the core's QuestionFlow (a Question asked, edited or deleted), and offers the platform's ways of
 * writing an answer through an AnswerWriter. Dedupe, answered-question tracking, deletion watching, new vs edited
 * questions and the reply registry live in the core, once.
 */
import type { IncomingMessage, ReplyStream } from '../conversation/types.ts';
import type { WorkspaceHistory } from '../workspace/workspace-history.ts';

/** A platform message addressed to Herald, as the core's question flow sees it. */
export interface Question {
  /** The message's key, unique on its platform (dedupe, answer tracking and deletions use it). */
  readonly key: string;
  /** What the asker wrote: an update that leaves it as it was (a link unfurled) is no edit. */
  readonly text: string;
  /** When it was sent, by the platform's clock (ms since the epoch). */
  readonly sentAt: number;
  /** The message as the engine reads it, with its files; a HeraldError is told to the asker. */
  read(signal: AbortSignal): Promise<IncomingMessage>;
  /** The history of the channels this asker and Herald can read, for the workspace search tool. */
  readonly workspace?: WorkspaceHistory;
  /** Starts an answer where the question was asked (typing or status shows until the first text). */
  openAnswer(events: AnswerEvents): AnswerWriter;
}

/** What an answer being written tells the core. */
export interface AnswerEvents {
  /** A message of the answer exists, by its platform key (a deletion of it stops the answer). */
  posted(messageKey: string): void;
  /** The asker stopped the answer on the platform: the engine stops, what is shown stays. */
  stoppedByAsker(): void;
}

export interface WrittenAnswer {
  /** The platform keys of the answer's messages, in order. */
  messageKeys: string[];
  /** Ended early: a message of it was deleted (`deleted`), or the signal stopped it (`aborted`). */
  stopped?: 'deleted' | 'aborted';
}

/** One answer's messages on the platform. */
export interface AnswerWriter {
  /**
   * Shows the engine's reply: streamed (natively, or posted and edited), then its sources, files and extras. An
   * abort of `signal` stops it where it is; a MessageGoneError reason names a message of it that was deleted.
   */
  write(stream: ReplyStream, signal: AbortSignal): Promise<WrittenAnswer>;
  /** Deletes messages of an answer; one already deleted is left at that. Absent where nothing shown can be taken back (a terminal). */
  remove?(messageKeys: readonly string[]): Promise<void>;
  /** Says in one short line that the answer could not be given (a HeraldError's own message, else a generic one). */
  fail(error: unknown): Promise<void>;
  /** The answer is over: typing and status indicators stop. */
  close(): Promise<void>;
}

/** A connected platform, as the runner starts and stops it. */
export interface Platform {
  /** For the start-up line, e.g. `Slack (Socket Mode)`. */
  readonly description: string;
  /** Shutdown begins: take no new events (a Slack delivery is refused so that Slack retries it elsewhere). */
  stopIntake(): Promise<void>;
  /** Replies are over: disconnect. Safe to call more than once. */
  stop(): Promise<void>;
}
