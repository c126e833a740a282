import type { Citation } from '../service/types.ts';
import { searchMessages } from '../workspace/message-search.ts';
import type { HistoryRange, WorkspaceMessage } from '../workspace/workspace-history.ts';
import { defineTool, type ToolContext } from './types.ts';

/** Messages read per search: the newest of the channel or thread (ten pages of Discord's history). */
export const SEARCHED_MESSAGES = 1000;
export const MAX_FOUND_MESSAGES = 30;
const DEFAULT_FOUND_MESSAGES = 15;
/** Longest text of one message shown to the model. */
const MAX_MESSAGE_CHARS = 600;
/** Longest query ranked: the model's, but still bounded before tokenizing. */
const MAX_QUERY_CHARS = 500;

interface SearchArgs {
  query?: string;
  channel?: string;
  limit?: number;
}

export const workspaceSearchTool = defineTool<SearchArgs>({
  name: 'search_messages',
  description:
    'Searches the messages of the current channel or thread (or of another channel the user names) and returns the best ' +
    'matches, numbered; cite the ones you use with their [n]. An empty query returns the latest messages, e.g. to summarize.',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'keywords to look for, in the language of the messages; empty for the latest messages' },
      channel: {
        type: 'string',
        description: 'a channel to search as a whole, by the name the user gave (e.g. "#launch"); omit for the current channel or thread',
      },
      limit: { type: 'integer', description: `how many messages to return, 1-${MAX_FOUND_MESSAGES} (default ${DEFAULT_FOUND_MESSAGES})` },
    },
  },
  available: (context) => context.workspace !== undefined,
  async handler({ query: asked = '', channel, limit }, context) {
    const query = asked.slice(0, MAX_QUERY_CHARS);
    const workspace = context.workspace!;
    const range = await rangeOf(channel, context);
    if (typeof range === 'string') return range;
    const read = await workspace.read(range, context.signal);
    const notSource = (m: WorkspaceMessage) => m.id === workspace.questionId || m.authorId === workspace.heraldId;
    const found = searchMessages(read.messages, query, Math.min(MAX_FOUND_MESSAGES, Math.max(1, limit ?? DEFAULT_FOUND_MESSAGES)), notSource);
    context.logger.info(
      { channel: range.channelId, thread: range.threadId, read: read.messages.length, found: found.length, cutShort: read.cutShort !== undefined },
      'searched the workspace history',
    );
    const note = read.cutShort ? `\nNote for the answer: ${read.cutShort}` : '';
    if (found.length === 0) return `No message matches${query ? ` "${query}"` : ''} among the ${read.messages.length} read.${note}`;
    const citations = found.map((m, i) => citationOf(m, i + 1));
    const lines = found.map(
      (m, i) => `[${i + 1}] ${timeOf(m.sentAt, context)} · #${m.channelName} · ${m.author}${m.isBot ? ' (bot)' : ''}: ${excerpt(m.text)}`,
    );
    const heading = query ? `Messages matching "${query}", best first:` : 'The latest messages, newest first:';
    return { text: `${heading}\n${lines.join('\n')}${note}`, citations };
  },
});

async function rangeOf(channel: string | undefined, context: ToolContext): Promise<HistoryRange | string> {
  const here = context.workspace!.here;
  if (channel === undefined || channel.trim() === '') return { ...here, limit: SEARCHED_MESSAGES };
  const channelId = await context.workspace!.channelNamed?.(channel.trim(), context.signal);
  if (channelId === undefined) return `There is no channel called ${channel} that I know of.`;
  // A channel named is read whole, the current one too when asked from one of its threads.
  return { channelId, limit: SEARCHED_MESSAGES };
}

function citationOf(message: WorkspaceMessage, index: number): Citation {
  return {
    index,
    url: message.link,
    title: excerpt(message.text, 100),
    message: { channelName: message.channelName, author: message.author, sentAt: message.sentAt },
  };
}

function excerpt(text: string, max = MAX_MESSAGE_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function timeOf(at: number, context: ToolContext): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: context.timezone, dateStyle: 'short', timeStyle: 'short', hourCycle: 'h23' }).format(at);
}
