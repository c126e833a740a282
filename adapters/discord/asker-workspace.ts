import type { Client, TextBasedChannel } from 'discord.js';
import type { Core } from '../../src/core.ts';
import type { HistoryCache } from '../../src/workspace/history-cache.ts';
import { DiscordWorkspace } from './workspace-history.ts';

/** Where someone asked (a message or an interaction), as the workspace history needs it. */
export interface AskedAt {
  client: Client;
  askerId: string;
  channelId: string;
  channel: TextBasedChannel | null;
  guildId: string | null;
  isDirectMessage: boolean;
  /** The message being answered, when there is one. */
  questionId?: string;
}

/** The history the asker may read, from the channel (or thread) they asked in. */
export function askerWorkspace(at: AskedAt, core: Core, history: HistoryCache): DiscordWorkspace {
  const { channel, channelId } = at;
  const place = channel?.isThread()
    ? { channelId: channel.parentId ?? channel.id, threadId: channel.id, isDirectMessage: false }
    : { channelId, isDirectMessage: at.isDirectMessage };
  return new DiscordWorkspace({
    client: at.client,
    askerId: at.askerId,
    place,
    access: core.config.discord?.access,
    ...(at.guildId !== null && { guildId: at.guildId }),
    cache: history,
    maxPages: core.config.workspace.historyPages,
    ...(at.questionId !== undefined && { questionId: at.questionId }),
  });
}
