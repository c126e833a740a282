import type { BaseInteraction } from 'discord.js';
import type { Core } from '../../src/core.ts';
import type { HistoryCache } from '../../src/workspace/history-cache.ts';
import { DiscordWorkspace } from './workspace-history.ts';

/** The history the user who pressed or typed may read, from the channel (or thread) of the interaction. */
export function interactionWorkspace(interaction: BaseInteraction, core: Core, history: HistoryCache): DiscordWorkspace | undefined {
  const channelId = interaction.channelId;
  if (channelId === null) return undefined;
  const channel = interaction.channel;
  const place = channel?.isThread()
    ? { channelId: channel.parentId ?? channel.id, threadId: channel.id, isDirectMessage: false }
    : { channelId, isDirectMessage: !interaction.inGuild() };
  return new DiscordWorkspace({
    client: interaction.client,
    askerId: interaction.user.id,
    place,
    access: core.config.discord?.access,
    ...(interaction.guildId !== null && { guildId: interaction.guildId }),
    cache: history,
    maxPages: core.config.workspace.historyPages,
  });
}
