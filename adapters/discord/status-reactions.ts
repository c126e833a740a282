import { PermissionFlagsBits, Routes, type Message } from 'discord.js';
import type { AnswerStatus, MarkStatus } from '../../src/platform/status-reactions.ts';

const EMOJI: Record<AnswerStatus, string> = { received: '👀', done: '✅', failed: '⚠️' };

/**
 * Status reactions on a Discord message: 👀 while it is answered, replaced by ✅ or ⚠️. Undefined where Herald may not
 * react (Add Reactions and Read Message History), so it does not ask Discord for what it would refuse.
 */
export function discordStatusMark(message: Message, botId: string): MarkStatus | undefined {
  if (message.inGuild()) {
    const permissions = message.channel.permissionsFor(botId);
    if (!permissions?.has([PermissionFlagsBits.AddReactions, PermissionFlagsBits.ReadMessageHistory])) return undefined;
  }
  const ownReaction = (emoji: string) => Routes.channelMessageOwnReaction(message.channelId, message.id, encodeURIComponent(emoji));
  return async (status) => {
    if (status !== 'received') await message.client.rest.delete(ownReaction(EMOJI.received));
    await message.client.rest.put(ownReaction(EMOJI[status]));
  };
}
