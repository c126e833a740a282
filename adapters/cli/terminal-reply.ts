import type { ReplyStream, ReplyUsage } from '../../src/conversation/types.ts';
import type { Citation } from '../../src/service/types.ts';
import { ReplyFailed } from './cli-error.ts';

export interface TerminalOutput {
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
}

export interface TerminalReplyOptions {
  showReasoning?: boolean;
  /** Status lines ("thinking…") on stderr while waiting; for interactive use. */
  showStatus?: boolean;
}

export function formatSources(citations: readonly Citation[]): string {
  const lines = citations.map((c) => {
    const meta = [c.siteName, c.publishTime?.slice(0, 10)].filter(Boolean).join(', ');
    return `[${c.index}] ${c.title}${meta ? ` — ${meta}` : ''}\n    ${c.url}`;
  });
  return `Sources:\n${lines.join('\n')}`;
}

/**
 * Writes a reply stream to a terminal: answer text to stdout as it arrives, transcripts before it,
 * numbered sources after it; reasoning and status to stderr. Throws ReplyFailed on an error event.
 */
export async function writeReply(stream: ReplyStream, io: TerminalOutput, options: TerminalReplyOptions = {}): Promise<ReplyUsage | undefined> {
  let citations: Citation[] = [];
  let wroteText = false;
  let endsWithNewline = true;
  let failure: ReplyFailed | undefined;
  let usage: ReplyUsage | undefined;
  const write = (text: string) => {
    io.out.write(text);
    if (text) endsWithNewline = text.endsWith('\n');
  };
  for await (const event of stream) {
    switch (event.type) {
      case 'status':
        if (options.showStatus) io.err.write(`\x1b[2m${event.text}\x1b[0m\n`);
        break;
      case 'reasoning':
        if (options.showReasoning) io.err.write(`\x1b[2m${event.delta}\x1b[0m`);
        break;
      case 'transcript':
        write(`${event.text}\n`);
        wroteText = true;
        break;
      case 'text':
        write(event.delta);
        wroteText = true;
        break;
      case 'citations':
        citations = event.citations;
        break;
      case 'notice':
        io.err.write(`note: ${event.text}\n`);
        break;
      case 'attachment':
        io.err.write(`(attachment ${event.name}, ${event.data.length} bytes)\n`);
        break;
      case 'error':
        failure = new ReplyFailed(event.message, event.code);
        break;
      case 'done':
        usage = event.usage;
        break;
    }
  }
  if (wroteText && !endsWithNewline) write('\n');
  if (citations.length > 0) write(`\n${formatSources(citations)}\n`);
  if (failure) throw failure;
  return usage;
}
