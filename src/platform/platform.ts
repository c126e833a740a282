/**
 * The contract between the core and a chat platform. An adapter only translates: it turns the platform's events
 * into calls on the core's QuestionFlow (a Question asked, edited or deleted), and offers the platform's ways of
 * writing an answer through an AnswerWriter. Dedupe, answered-question tracking, deletion watching, new vs edited
 * questions and the reply registry live in the core, once.
 */
import type { IncomingMessage, ReplyStream } from '../conversation/types.ts';
import type { Citation } from '../service/types.ts';
import type { ApprovalOutcome } from '../tools/types.ts';
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
  /**
   * What the platform's Reviver needs to rebuild the question on another instance, as plain JSON: an answer its
   * instance died writing is finished there. Absent where nobody else could finish it.
   */
  readonly revival?: unknown;
}

/** Rebuilds a question from its `revival`, on whichever instance finishes an answer another instance left unfinished. */
export interface Reviver {
  /**
   * The question as it was asked; undefined once it is gone, or no longer addressed to Herald. Throws when the
   * platform cannot tell now (it is tried again later).
   */
  question(revival: unknown): Promise<Question | undefined>;
  /**
   * Ends an unfinished answer to a question that is gone: its messages say in a short line that it was interrupted,
   * or go where a platform cannot change them.
   */
  interrupted(revival: unknown, messageKeys: readonly string[]): Promise<void>;
  /**
   * Herald's messages answering the question besides `known`: one an instance posted and died before it could record
   * (the platform made it; the store never heard), which the new answer must replace too. Absent where reading the
   * channel back costs too much (Slack's history reads).
   */
  strays?(revival: unknown, known: readonly string[]): Promise<string[]>;
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
  /** The text shown, across its messages (kept as a version of the answer for ◀ ▶). */
  text?: string;
  /** The sources listed under it (kept with the version, for ◀ ▶ to show them again). */
  citations?: readonly Citation[];
  /** Ended early: a message of it was deleted (`deleted`), or the signal stopped it (`aborted`). */
  stopped?: 'deleted' | 'aborted';
}

/** What a press on an answer asks for. */
export type AnswerAction = 'stop' | 'regenerate' | 'continue' | 'previous' | 'next';

/** The controls an answer shows on its last message; none at all takes them off. */
export interface AnswerControls {
  /** While it is written. */
  stop?: boolean;
  /** Once it is written: answer the same question again. */
  regenerate?: boolean;
  /** The service cut the answer short: ask it to go on. */
  continue?: boolean;
  /** Which version is shown (1-based) of how many, once there are several: ◀ n/m ▶. */
  version?: { shown: number; count: number };
}

/** An answer's text and the sources listed under it. */
export interface ShownAnswer {
  text: string;
  citations?: readonly Citation[];
}

/** Changes an answer already shown, for the core's controls; the platform keys are the answer's messages in order. */
export interface AnswerEditor {
  /** Shows `controls` on the last of the messages (and none on the others). */
  showControls(messageKeys: readonly string[], controls: AnswerControls): Promise<void>;
  /**
   * Shows a version in place of the answer: its messages are edited, extra ones posted or surplus ones deleted as the
   * text needs; its sources (none: the old ones go) and `controls` go on the last. Returns the keys of the messages
   * that now hold it.
   */
  rewrite(messageKeys: readonly string[], shown: ShownAnswer, controls: AnswerControls): Promise<string[]>;
}

/** Someone pressed a control on an answer, as the adapter tells the core. */
export interface AnswerPress {
  /** The key of the question the answer answers (the adapter puts it in the control). */
  readonly questionKey: string;
  readonly action: AnswerAction;
  /** The presser's platform user id. */
  readonly userId: string;
  /** The platform lets the presser moderate messages where the answer is (Discord: Manage Messages; never in a DM). */
  readonly mayModerate: boolean;
  /** The answer's messages, where it was pressed. */
  readonly editor: AnswerEditor;
  /** The question as the platform has it now, for Regenerate and Continue; undefined once it is gone. */
  question(): Promise<Question | undefined>;
}

/**
 * What a press did: `done` (it acts, or began to), `refused` (only the asker or a moderator may press it: say so
 * to the presser alone), `superseded` (Regenerate or Continue on an answer the conversation has since gone on
 * from), `gone` (the answer is no longer known, or the control no longer applies).
 */
export type PressOutcome = 'done' | 'refused' | 'superseded' | 'gone';

/** What the presser alone is told of a press that did not act, on every platform. */
export const PRESS_REFUSALS: Readonly<Record<Exclude<PressOutcome, 'done'>, string>> = {
  refused: 'Only the asker can do that.',
  superseded: 'Only the latest answer in this conversation can be regenerated or continued.',
  gone: 'That answer can no longer be changed.',
};

/** A tool call the asker is asked to approve, as a platform shows it. */
export interface ApprovalView {
  /** Names the approval in the platform's Approve and Deny controls (a press carries it back). */
  readonly id: string;
  /** The tool as people know it. */
  readonly title: string;
  /** The call's arguments as pretty JSON, already cut to fit: untrusted text, shown in a code block. */
  readonly args: string;
}

/** How an approval ended, as its message shows it once its controls are gone. */
export type ApprovalEnd = ApprovalOutcome | 'cancelled';

/** An approval's message, posted where the question is answered. */
export interface ApprovalMessage {
  /** Shows how it ended: the controls go, a line says who decided or that time ran out. */
  settle(end: ApprovalEnd): Promise<void>;
  /** Takes it down, as its question was (absent where nothing shown can be taken back). */
  remove?(): Promise<void>;
}

/** Someone pressed Approve or Deny on an approval, as the adapter tells the core. */
export interface ApprovalPress {
  readonly approvalId: string;
  readonly answer: 'approved' | 'denied';
  /** The presser's platform user id. */
  readonly userId: string;
}

/** What an approval press did: `done`, `refused` (not the asker's), `gone` (answered already, or expired). */
export type ApprovalPressOutcome = 'done' | 'refused' | 'gone';

/** What the presser alone is told of an approval press that did not count, on every platform. */
export const APPROVAL_REFUSALS: Readonly<Record<Exclude<ApprovalPressOutcome, 'done'>, string>> = {
  refused: 'Only the person who asked can approve or deny this.',
  gone: 'This approval has already been answered or has expired.',
};

/** One answer's messages on the platform. */
export interface AnswerWriter extends Partial<AnswerEditor> {
  /** Posts an approval with Approve and Deny where the answer is written. Absent where nobody can press (no approval is asked). */
  askApproval?(view: ApprovalView): Promise<ApprovalMessage>;
  /**
   * Shows the engine's reply: streamed (natively, or posted and edited), then its sources, files and extras. An
   * abort of `signal` stops it where it is; a MessageGoneError reason names a message of it that was deleted.
   * `controls` show on the message being written while it is (a platform without them ignores them).
   */
  write(stream: ReplyStream, signal: AbortSignal, controls?: AnswerControls): Promise<WrittenAnswer>;
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
