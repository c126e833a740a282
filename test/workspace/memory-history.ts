import type { HistoryRange, HistoryRead, WorkspaceHistory, WorkspaceMessage } from '../../src/workspace/workspace-history.ts';

/** A channel's history held in memory, read as an adapter's would: the newest `limit` of the range, oldest first. */
export class MemoryHistory implements WorkspaceHistory {
  readonly here: { channelId: string; threadId?: string };
  readonly messages: WorkspaceMessage[];
  readonly reads: HistoryRange[] = [];
  /** Said by every read, as a reader stopped by its API budget would. */
  cutShort: string | undefined;

  constructor(messages: WorkspaceMessage[], here: { channelId: string; threadId?: string } = { channelId: 'C1' }) {
    this.messages = messages;
    this.here = here;
  }

  async read(range: HistoryRange, signal: AbortSignal): Promise<HistoryRead> {
    signal.throwIfAborted();
    this.reads.push(range);
    const from = range.fromId === undefined ? 0 : this.messages.findIndex((m) => m.id === range.fromId);
    const matching = this.messages
      .slice(Math.max(0, from))
      .filter((m) => m.channelId === range.channelId && m.threadId === range.threadId && (range.since === undefined || m.sentAt >= range.since));
    return { messages: matching.slice(-range.limit), ...(this.cutShort && { cutShort: this.cutShort }) };
  }
}

/** `count` messages a minute apart in #launch, from `start`; message i (1-based) says `text(i)`. */
export function channelMessages(count: number, text: (i: number) => string, start = Date.UTC(2025, 0, 14, 8)): WorkspaceMessage[] {
  return Array.from({ length: count }, (_, k) => {
    const i = k + 1;
    const author = ['alice', 'bob', 'carol'][k % 3]!;
    return {
      id: `m${i}`,
      channelId: 'C1',
      channelName: 'launch',
      authorId: `U-${author}`,
      author,
      isBot: false,
      text: text(i),
      sentAt: start + k * 60_000,
      link: `https://chat.example/launch/m${i}`,
    };
  });
}
