import type { ReplyStream } from '../../src/conversation/types.ts';
import type { AnswerEvents, AnswerWriter, ApprovalMessage, ApprovalView, WrittenAnswer } from '../../src/platform/platform.ts';
import { errorLine, ReplyFailed } from './cli-error.ts';
import { askOnTerminal, type TerminalPrompt } from './terminal-approval.ts';
import { writeReply, type TerminalOutput } from './terminal-reply.ts';

/** Where Ctrl-C reaches the shell (its readline interface). */
export interface Interrupts {
  on(event: 'SIGINT', listener: () => void): unknown;
  off(event: 'SIGINT', listener: () => void): unknown;
}

export interface TerminalAnswerOptions {
  io: TerminalOutput;
  events: AnswerEvents;
  interrupts: Interrupts;
  /** Redacted from any failure shown. */
  secrets: readonly string[];
  prompt: TerminalPrompt;
}

/**
 * An answer written to the terminal: status lines on stderr while waiting, the text streamed to stdout, sources
 * and attachments after it. Ctrl-C while it is open stops it; what was printed stays. A terminal keeps no message
 * keys and cannot take back what it printed, so there is no `remove`.
 */
export class TerminalAnswer implements AnswerWriter {
  readonly #io: TerminalOutput;
  readonly #interrupts: Interrupts;
  readonly #secrets: readonly string[];
  readonly #stop: () => void;
  readonly #prompt: TerminalPrompt;

  constructor({ io, events, interrupts, secrets, prompt }: TerminalAnswerOptions) {
    this.#io = io;
    this.#prompt = prompt;
    this.#interrupts = interrupts;
    this.#secrets = secrets;
    this.#stop = () => events.stoppedByAsker();
    interrupts.on('SIGINT', this.#stop);
  }

  async write(stream: ReplyStream, signal: AbortSignal): Promise<WrittenAnswer> {
    try {
      await writeReply(stream, this.#io, { showStatus: true });
    } catch (error) {
      if (!(error instanceof ReplyFailed)) throw error;
      this.#io.err.write(`herald: ${error.message}\n`);
    }
    return { messageKeys: [], ...(signal.aborted && { stopped: 'aborted' as const }) };
  }

  async askApproval(view: ApprovalView): Promise<ApprovalMessage> {
    return askOnTerminal(this.#prompt, view);
  }

  async fail(error: unknown): Promise<void> {
    this.#io.err.write(`${errorLine(error, this.#secrets)}\n`);
  }

  async close(): Promise<void> {
    this.#interrupts.off('SIGINT', this.#stop);
  }
}
