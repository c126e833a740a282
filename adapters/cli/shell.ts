import { createInterface } from 'node:readline/promises';
import type { WebSearchMode } from '../../src/config/config.ts';
import type { Core } from '../../src/core.ts';
import type { ConversationKey, RequestOverrides } from '../../src/conversation/types.ts';
import { ReplyFailed } from './cli-error.ts';
import { writeReply, type TerminalOutput } from './terminal-reply.ts';

const HELP = `Type a message and press Enter. Commands: /reset (forget the conversation), /think on|off,
/search off|auto|force, /help, /exit. Ctrl+C stops an answer; Ctrl+D leaves.`;

/** Runs a shell command line (`/reset`, `/think on`…); returns what to tell the user, or undefined for chat text. */
async function shellCommand(line: string, core: Core, key: ConversationKey, overrides: RequestOverrides): Promise<string | undefined> {
  if (line === '/help') return HELP;
  if (line === '/reset') {
    await core.engine.reset(key);
    return 'Forgot the conversation.';
  }
  const think = /^\/think (on|off)$/.exec(line);
  if (think) {
    overrides.thinking = think[1] === 'on';
    return `Thinking ${think[1]}.`;
  }
  const search = /^\/search (off|auto|force)$/.exec(line);
  if (search) {
    overrides.webSearch = search[1] as WebSearchMode;
    return `Web search ${search[1]}.`;
  }
  if (line.startsWith('/')) return `Unknown command ${line.split(/\s/)[0]}. ${HELP}`;
  return undefined;
}

/** An interactive chat in the terminal, for when no platform token is set. */
export async function runShell(core: Core, io: TerminalOutput & { in: NodeJS.ReadableStream }): Promise<void> {
  const input = createInterface({ input: io.in, output: io.err, terminal: Boolean((io.in as { isTTY?: boolean }).isTTY) });
  const key: ConversationKey & { threadId: string } = { platform: 'cli', channelId: 'terminal', threadId: `shell-${process.pid}` };
  const overrides: RequestOverrides = {};
  let current: AbortController | undefined;
  let turn = 0;
  input.on('SIGINT', () => {
    if (current) current.abort();
    else input.close();
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
      const command = await shellCommand(line, core, key, overrides);
      if (command !== undefined) {
        io.err.write(`${command}\n`);
        prompt();
        continue;
      }
      current = new AbortController();
      turn += 1;
      const message = {
        ...key,
        messageId: `${key.threadId}-${turn}`,
        author: { id: 'local', displayName: 'you' },
        text: line,
        isDirect: true,
      };
      try {
        await writeReply(core.engine.handle(message, { signal: current.signal, overrides }), io, { showStatus: true });
      } catch (error) {
        if (!(error instanceof ReplyFailed)) throw error;
        io.err.write(`herald: ${error.message}\n`);
      } finally {
        current = undefined;
      }
      prompt();
    }
  } finally {
    input.close();
  }
}
