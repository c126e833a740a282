import { createInterface } from 'node:readline/promises';
import type { WebSearchMode } from '../../src/config/config.ts';
import type { Core } from '../../src/core.ts';
import type { ConversationKey } from '../../src/conversation/types.ts';
import { QuestionFlow } from '../../src/platform/question-flow.ts';
import { LOCAL_USER, shellQuestion, type ShellSession } from './shell-question.ts';
import type { TerminalOutput } from './terminal-reply.ts';

const HELP = `Type a message and press Enter. Commands: /reset (forget the conversation), /think on|off,
/search off|auto|force, /help, /exit. Ctrl+C stops an answer; Ctrl+D leaves.`;

/** Runs a shell command line (`/reset`, `/think on`…); returns what to tell the user, or undefined for chat text. */
async function shellCommand(line: string, core: Core, key: ConversationKey): Promise<string | undefined> {
  if (line === '/help') return HELP;
  if (line === '/reset') {
    await core.engine.reset(key);
    return 'Forgot the conversation.';
  }
  // The terminal's settings, kept with the session's memory.
  const scope = { platform: key.platform, channelId: key.channelId };
  const think = /^\/think (on|off)$/.exec(line);
  if (think) {
    await core.engine.updateSettings(scope, { thinking: think[1] === 'on' });
    return `Thinking ${think[1]}.`;
  }
  const search = /^\/search (off|auto|force)$/.exec(line);
  if (search) {
    await core.engine.updateSettings(scope, { webSearch: search[1] as WebSearchMode });
    return `Web search ${search[1]}.`;
  }
  if (line.startsWith('/')) return `Unknown command ${line.split(/\s/)[0]}. ${HELP}`;
  return undefined;
}

/**
 * An interactive chat in the terminal, for when no platform token is set: a platform whose every line is a Question
 * answered by the core's QuestionFlow. Ctrl-C stops an answer being written, or else leaves.
 */
export async function runShell(core: Core, io: TerminalOutput & { in: NodeJS.ReadableStream }, secrets: readonly string[]): Promise<void> {
  const input = createInterface({ input: io.in, output: io.err, terminal: Boolean((io.in as { isTTY?: boolean }).isTTY) });
  const flow = new QuestionFlow({ platform: 'cli', core, logger: core.logger });
  let asking: Promise<string> = Promise.resolve('');
  const session: ShellSession = {
    key: { platform: 'cli', channelId: 'terminal', threadId: `shell-${process.pid}` },
    io,
    interrupts: input,
    secrets,
    prompt: {
      io,
      readLine: (query, signal) => {
        // Calls of one round ask together: their questions take turns.
        const line = asking.then(() => input.question(query, { signal }));
        asking = line.catch(() => '');
        return line;
      },
      answer: (press) => flow.approvalPressed({ ...press, userId: LOCAL_USER }),
    },
  };
  let answering = false;
  let turn = 0;
  input.on('SIGINT', () => {
    if (!answering) input.close();
  });
  io.err.write(`Herald chat shell (no Discord or Slack token set). ${HELP}\n`);
  const prompt = () => io.err.write('you> ');
  try {
    prompt();
    for await (const raw of input) {
      const line = raw.trim();
      if (!line) {
        prompt();
        continue;
      }
      if (line === '/exit' || line === '/quit') break;
      const command = await shellCommand(line, core, session.key);
      if (command !== undefined) {
        io.err.write(`${command}\n`);
        prompt();
        continue;
      }
      turn += 1;
      answering = true;
      try {
        await flow.asked(shellQuestion(session, turn, line));
      } finally {
        answering = false;
      }
      prompt();
    }
  } finally {
    input.close();
  }
}
