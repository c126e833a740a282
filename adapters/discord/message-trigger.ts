import { MessageFlags, MessageReferenceType, MessageType, type Message } from 'discord.js';
import { addressedBy, type Addressed, type MessageFacts } from '../../src/platform/addressed.ts';
import type { ChannelTriggers } from '../../src/conversation/types.ts';

/**
 * Why Herald answers a message (the core decides, see addressedBy): a direct message, a message in a thread Herald
 * started, a reply to one of Herald's messages, an @mention of Herald (or of its managed role), a trigger word, a
 * channel answered without mentions, or a voice message to transcribe.
 */
export type Trigger = Addressed;

function mentionsBot(message: Message, botId: string): boolean {
  return message.mentions.users.has(botId) || message.mentions.roles.some((role) => role.tags?.botId === botId);
}

function mentionsOthers(message: Message, botId: string): boolean {
  const { mentions } = message;
  return mentions.everyone || mentions.users.some((user) => user.id !== botId) || mentions.roles.some((role) => role.tags?.botId !== botId);
}

/** The reply reference of a message that answers another one (not a forward). */
export function repliedMessageId(message: Message): string | undefined {
  const reference = message.reference;
  return reference?.messageId && reference.type === MessageReferenceType.Default ? reference.messageId : undefined;
}

/** A person's own message (a plain one or a reply): bots, Herald included, webhooks and system notices are never answered. */
export function fromPerson(message: Message, botId: string): boolean {
  if (message.author.bot || message.author.id === botId || message.webhookId !== null || message.system) return false;
  return message.type === MessageType.Default || message.type === MessageType.Reply;
}

/** What Discord tells of a message, as the core's trigger decision reads it. */
export function messageFacts(message: Message, botId: string): MessageFacts {
  const channel = message.channel;
  return {
    fromPerson: fromPerson(message, botId),
    direct: !message.inGuild(),
    mentionsHerald: mentionsBot(message, botId),
    repliesToHerald: repliedMessageId(message) !== undefined && message.mentions.repliedUser?.id === botId,
    inHeraldThread: channel.isThread() && channel.ownerId === botId,
    mentionsOthers: mentionsOthers(message, botId),
    voiceNote: message.flags.has(MessageFlags.IsVoiceMessage),
    text: message.content,
  };
}

/** What makes Herald answer `message` in a channel with these triggers, or undefined to stay quiet. */
export function triggerOf(message: Message, botId: string, triggers: ChannelTriggers): Trigger | undefined {
  return addressedBy(messageFacts(message, botId), triggers);
}
