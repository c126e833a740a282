import type { Message } from 'discord.js';
import type { IncomingMessage, Mention, ReplyReference } from '../../src/conversation/types.ts';
import type { MessageMedia } from './attachments.ts';
import { repliedMessageId } from './message-trigger.ts';
import { visibleContent, type VisibleContent } from './visible-content.ts';

export interface ConversationLocation {
  /** The channel; for a thread, its parent channel. */
  channelId: string;
  /** The thread, or the root message of a reply chain; absent for a direct message's whole channel. */
  threadId?: string;
}

function authorName(message: Message): string {
  return message.member?.displayName ?? message.author.displayName;
}

/**
 * Herald's own mention is how it was called, not part of the question; other mentions become names. A forward's
 * text is marked as forwarded.
 */
function readText(message: Message, visible: VisibleContent, botId: string): { text: string; mentions: Mention[] } {
  let text = visible.content.replace(new RegExp(`<@!?${botId}>`, 'g'), '');
  for (const role of visible.mentions.roles.values()) {
    if (role.tags?.botId === botId) text = text.split(`<@&${role.id}>`).join('');
  }
  text = text.replace(/<#(\d{17,20})>/g, (raw, id: string) => {
    const channel = message.client.channels.cache.get(id);
    return channel && 'name' in channel && channel.name ? `#${channel.name}` : raw;
  });
  const mentions = new Map<string, Mention>();
  for (const match of text.matchAll(/<@(!|&)?(\d{17,20})>/g)) {
    const [raw, kind, id] = match as unknown as [string, string | undefined, string];
    if (mentions.has(raw)) continue;
    if (kind === '&') {
      const role = visible.mentions.roles.get(id) ?? message.guild?.roles.cache.get(id);
      if (role) mentions.set(raw, { id, displayName: role.name, raw });
      continue;
    }
    const member = visible.mentions.members?.get(id);
    const user = visible.mentions.users.get(id) ?? message.client.users.cache.get(id);
    mentions.set(raw, { id, displayName: member?.displayName ?? user?.displayName ?? 'someone', raw });
  }
  text = text.replace(/[ \t]{2,}/g, ' ').trim();
  return { text: visible.forwarded && text !== '' ? `(forwarded message) ${text}` : text, mentions: [...mentions.values()] };
}

function replyReference(message: Message, replied: Message | undefined, botId: string): ReplyReference | undefined {
  const id = repliedMessageId(message);
  if (id === undefined) return undefined;
  if (!replied) return { messageId: id };
  return { messageId: id, authorName: authorName(replied), text: visibleContent(replied).content, isBot: replied.author.id === botId };
}

/** A Discord message as the core's platform-neutral message. */
export function toIncomingMessage(
  message: Message,
  context: {
    botId: string;
    conversation: ConversationLocation;
    /** What the message shows, read when it arrived (for a forward, the forwarded message). */
    visible: VisibleContent;
    /** The message it replies to, when that could be read. */
    replied?: Message;
    media: MessageMedia;
    transcriptOnly: boolean;
  },
): IncomingMessage {
  const { text, mentions } = readText(message, context.visible, context.botId);
  const replyTo = replyReference(message, context.replied, context.botId);
  const { images, audio, documents } = context.media;
  return {
    platform: 'discord',
    ...(message.guildId !== null && { workspaceId: message.guildId }),
    channelId: context.conversation.channelId,
    ...(context.conversation.threadId !== undefined && { threadId: context.conversation.threadId }),
    messageId: message.id,
    author: { id: message.author.id, displayName: authorName(message), isBot: message.author.bot },
    text,
    ...(images.length > 0 && { images }),
    ...(audio.length > 0 && { audio }),
    ...(documents.length > 0 && { documents }),
    ...(mentions.length > 0 && { mentions }),
    ...(replyTo && { replyTo }),
    isDirect: !message.inGuild(),
    ...(context.transcriptOnly && { flags: { transcriptOnly: true } }),
  };
}
