import { MessageFlags, MessageReferenceType, MessageType, type Message } from 'discord.js';

/**
 * Why Herald answers a message: a direct message, a message in a thread Herald started, a reply to one of
 * Herald's messages, an @mention of Herald (or of its managed role), or a voice message to transcribe.
 */
export type Trigger = 'direct' | 'thread' | 'reply' | 'mention' | 'voice-note';

function mentionsBot(message: Message, botId: string): boolean {
  return message.mentions.users.has(botId) || message.mentions.roles.some((role) => role.tags?.botId === botId);
}

/** The reply reference of a message that answers another one (not a forward). */
export function repliedMessageId(message: Message): string | undefined {
  const reference = message.reference;
  return reference?.messageId && reference.type === MessageReferenceType.Default ? reference.messageId : undefined;
}

/** What makes Herald answer `message`, or undefined to stay quiet; bots (Herald included) are never answered. */
export function triggerOf(message: Message, botId: string): Trigger | undefined {
  if (message.author.bot || message.author.id === botId || message.webhookId !== null || message.system) return undefined;
  if (message.type !== MessageType.Default && message.type !== MessageType.Reply) return undefined;
  if (!message.inGuild()) return 'direct';
  const channel = message.channel;
  if (channel.isThread() && channel.ownerId === botId) return 'thread';
  if (repliedMessageId(message) !== undefined && message.mentions.repliedUser?.id === botId) return 'reply';
  if (mentionsBot(message, botId)) return 'mention';
  if (message.flags.has(MessageFlags.IsVoiceMessage)) return 'voice-note';
  return undefined;
}
