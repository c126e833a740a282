import type { ApprovalEnd, ApprovalMessage, ApprovalPress, ApprovalPressOutcome, ApprovalView } from '../../src/platform/platform.ts';
import type { TerminalOutput } from './terminal-reply.ts';

/** The terminal's way of asking: a line read after `query` (one question at a time), given up when `signal` aborts. */
export interface TerminalPrompt {
  io: TerminalOutput;
  readLine(query: string, signal: AbortSignal): Promise<string>;
  /** Answers an approval, as a press on a platform would. */
  answer(press: Omit<ApprovalPress, 'userId'>): Promise<ApprovalPressOutcome>;
}

const ENDS: Readonly<Record<ApprovalEnd, string>> = {
  approved: 'Approved.',
  denied: 'Denied.',
  expired: 'Not answered in time, so denied.',
  cancelled: 'Cancelled.',
};

/** Shows the tool and its arguments on stderr and asks y/N: only `y` or `yes` approves. */
export function askOnTerminal(prompt: TerminalPrompt, view: ApprovalView): ApprovalMessage {
  const { io } = prompt;
  const asking = new AbortController();
  prompt
    .readLine(`\nHerald wants to run ${view.title} with:\n${view.args}\nRun it? [y/N] `, asking.signal)
    .then((line) => prompt.answer({ approvalId: view.id, answer: /^y(es)?$/i.test(line.trim()) ? 'approved' : 'denied' }))
    .catch(() => {});
  return {
    settle: async (end) => {
      if (!asking.signal.aborted) asking.abort();
      io.err.write(`${ENDS[end]}\n`);
    },
  };
}
