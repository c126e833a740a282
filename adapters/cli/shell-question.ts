import type { ConversationKey, IncomingMessage } from '../../src/conversation/types.ts';
import type { Question } from '../../src/platform/platform.ts';
import { TerminalAnswer, type Interrupts } from './terminal-answer.ts';
import type { TerminalPrompt } from './terminal-approval.ts';
import type { TerminalOutput } from './terminal-reply.ts';

/** The one person at the terminal. */
export const LOCAL_USER = 'local';

/** The shell's one conversation and where its answers go. */
export interface ShellSession {
  key: ConversationKey & { threadId: string };
  io: TerminalOutput;
  interrupts: Interrupts;
  secrets: readonly string[];
  /** Where an approval asks y/N. */
  prompt: TerminalPrompt;
}

/** A line typed in the shell, the `turn`-th question of the session, as the core's Question. */
export function shellQuestion(session: ShellSession, turn: number, text: string): Question {
  const messageId = `${session.key.threadId}-${turn}`;
  const message: IncomingMessage = {
    ...session.key,
    messageId,
    author: { id: LOCAL_USER, displayName: 'you' },
    text,
    isDirect: true,
  };
  return {
    key: messageId,
    text,
    sentAt: Date.now(),
    read: async () => message,
    openAnswer: (events) =>
      new TerminalAnswer({ io: session.io, events, interrupts: session.interrupts, secrets: session.secrets, prompt: session.prompt }),
  };
}
