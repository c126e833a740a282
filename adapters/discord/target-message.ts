import { cleanContent, type Message } from 'discord.js';
import type { TargetMessage } from '../../commands/message-action.ts';
import { downloadAttachment } from './attachments.ts';
import { visibleContent } from './visible-content.ts';

/** A message a menu was run on, as the core's target: what it shows (for a forward, the forwarded message's). */
export function targetMessage(message: Message): TargetMessage {
  const visible = visibleContent(message);
  return {
    id: message.id,
    text: cleanContent(visible.content, message.channel),
    author: { id: message.author.id, displayName: message.member?.displayName ?? message.author.displayName, isBot: message.author.bot },
    files: visible.attachments.map((attachment) => ({
      // Named as answers to voice messages name them; Discord calls every one voice-message.ogg.
      name: visible.voiceMessage ? 'Voice message' : attachment.name,
      ...(attachment.contentType && { contentType: attachment.contentType }),
      size: attachment.size,
      isVoiceMessage: visible.voiceMessage,
      fetch: () => downloadAttachment(attachment),
    })),
    link: message.url,
    sentAt: message.createdTimestamp,
  };
}
