import type { Message } from 'discord.js';
import type { Logger } from '../../src/log/logger.ts';
import { repliedMessageId } from './message-trigger.ts';
import { visibleContent, type VisibleContent } from './visible-content.ts';

/**
 * The message `message` replies to. Discord sends it along with the reply (referenced_message), which discord.js
 * caches; when Discord left it out, or the cache holds only a forward's snapshot of it (no author), it is
 * fetched. A deleted or unreadable original is undefined: the question is answered without it.
 */
export async function repliedMessage(message: Message, logger: Logger): Promise<Message | undefined> {
  const id = repliedMessageId(message);
  if (id === undefined) return undefined;
  const cached = message.channel.messages.cache.get(id);
  if (cached && !cached.partial) return cached;
  try {
    return await message.channel.messages.fetch({ message: id, force: true });
  } catch (error) {
    logger.info({ err: error, messageId: id }, 'the message replied to could not be read');
    return undefined;
  }
}

/**
 * Whose files Herald reads: the message's own (a forward's included); without any, those of the message it
 * replies to ("@Herald what does this say?" under someone's screenshot), unless that is Herald's own message.
 */
export function filesToRead(
  visible: VisibleContent,
  replied: Message | undefined,
  botId: string,
): Pick<VisibleContent, 'attachments' | 'voiceMessage'> {
  if (visible.attachments.length > 0 || !replied || replied.author.id === botId) return visible;
  return visibleContent(replied);
}
