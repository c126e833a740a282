import { createInterface } from 'node:readline/promises';
import type { WebSearchMode } from '../../src/config/config.ts';
import type { Core } from '../../src/core.ts';
import type { RequestOverrides } from '../../src/conversation/types.ts';
import { ReplyFailed, writeReply, type TerminalOutput } from './terminal-reply.ts';

const HELP = `Type a message and press Enter. Commands: /reset (forget the conversation), /think on|off,
/search off|auto|force, /help, /exit. Ctrl+C stops an answer; Ctrl+D leaves.`;

/** An interactive chat in the terminal, for when no platform token is set. */
export async function runShell(core: Core, io: TerminalOutput & { in: NodeJS.ReadableStream }): Promise<void> {
  const rl = createInterface({ input: io.in, output: io.err, terminal: Boolean((io.in as { isTTY?: boolean }).isTTY) });
  const key = { platform: 'cli', channelId: 'terminal', threadId: `shell-${process.pid}` };
  const overrides: RequestOverrides = {};
  let current: AbortController | undefined;
  let turn = 0;
  rl.on('SIGINT', () => {
    if (current) current.abort();
    else rl.close();
  });
  io.err.write(`Herald chat shell (no Discord or Slack token set). ${HELP}\n`);
  try {
    for (;;) {
      let line: string;
      try {
        line = (await rl.question('you> ')).trim();
      } catch {
        break;
      }
      if (!line) continue;
      if (line === '/exit' || line === '/quit') break;
      if (line === '/help') {
        io.err.write(`${HELP}\n`);
        continue;
      }
      if (line === '/reset') {
        await core.engine.reset(key);
        io.err.write('Forgot the conversation.\n');
        continue;
      }
      const think = /^\/think (on|off)$/.exec(line);
      if (think) {
        overrides.thinking = think[1] === 'on';
        io.err.write(`Thinking ${think[1]}.\n`);
        continue;
      }
      const search = /^\/search (off|auto|force)$/.exec(line);
      if (search) {
        overrides.webSearch = search[1] as WebSearchMode;
        io.err.write(`Web search ${search[1]}.\n`);
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
    }
  } finally {
    rl.close();
  }
}
