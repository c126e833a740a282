import { MessageFlags, MessageReferenceType, type Attachment, type Message, type MessageMentions } from 'discord.js';

/** The words and files a message shows: its own, or for a forward those of the message forwarded. */
export interface VisibleContent {
  content: string;
  mentions: MessageMentions;
  attachments: Attachment[];
  voiceMessage: boolean;
  /** Taken from a forward's snapshot (Discord sends a forward with no content of its own). */
  forwarded: boolean;
}

/**
 * Read as soon as the message arrives: discord.js keeps a forward's snapshot as the forwarded message's own
 * cached object when it knows that channel, so an edit of the original would otherwise show through.
 */
export function visibleContent(message: Message): VisibleContent {
  const snapshot = message.reference?.type === MessageReferenceType.Forward ? message.messageSnapshots.first() : undefined;
  const source = snapshot ?? message;
  return {
    content: source.content,
    mentions: source.mentions,
    attachments: [...source.attachments.values()],
    voiceMessage: source.flags.has(MessageFlags.IsVoiceMessage),
    forwarded: snapshot !== undefined,
  };
}
