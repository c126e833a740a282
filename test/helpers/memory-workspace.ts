import { WorkspaceAccessError } from '../../src/workspace/workspace-access-error.ts';
import type { HistoryRange, HistoryRead, WorkspaceHistory, WorkspaceMessage } from '../../src/workspace/workspace-history.ts';

/** A message of a channel, with what the tests leave out filled in (ids, links, times a minute apart). */
export function workspaceMessage(channelId: string, n: number, text: string, extra: Partial<WorkspaceMessage> = {}): WorkspaceMessage {
  return {
    id: `${channelId}-${n}`,
    channelId,
    channelName: channelId,
    authorId: 'u-bob',
    author: 'Bob',
    isBot: false,
    text,
    sentAt: Date.UTC(2025, 0, 14, 9) + n * 60_000,
    link: `https://chat.example/${channelId}/${n}`,
    ...extra,
  };
}

/** Channels held in memory; a channel listed in `refused` answers as a channel the asker may not read. */
export function memoryWorkspace(
  channels: Record<string, WorkspaceMessage[]>,
  options: { here?: string; refused?: string[]; cutShort?: string } = {},
): WorkspaceHistory & { reads: HistoryRange[] } {
  const reads: HistoryRange[] = [];
  return {
    here: { channelId: options.here ?? Object.keys(channels)[0]! },
    reads,
    async read(range: HistoryRange): Promise<HistoryRead> {
      reads.push(range);
      if (options.refused?.includes(range.channelId)) throw new WorkspaceAccessError('private_in_public', `#${range.channelId}`);
      const messages = (channels[range.channelId] ?? []).slice(-range.limit);
      return { messages, ...(options.cutShort && { cutShort: options.cutShort }) };
    },
    async channelNamed(name: string) {
      const id = name.replace(/^#/, '');
      return id in channels || options.refused?.includes(id) ? id : undefined;
    },
  };
}
