import type { IncomingAudio, IncomingDocument, IncomingImage, IncomingMessage, Mention } from '../../src/conversation/types.ts';
import { readSlackText } from './incoming-text.ts';
import type { SlackMessageEvent } from './slack-event.ts';
import type { UserDirectory } from './user-directory.ts';

export interface NormalizeContext {
  teamId: string;
  botUserId: string;
  users: UserDirectory;
  /** The conversation's thread root; undefined for a direct message's main timeline. */
  threadTs: string | undefined;
  images?: IncomingImage[];
  audio?: IncomingAudio[];
  documents?: IncomingDocument[];
}

/**
 * A Slack message as the core's IncomingMessage: names for its author and mentions (the user id while Slack is
 * slow to say), files as bytes (or, for a file Herald cannot read, by name only).
 */
export async function toIncomingMessage(event: SlackMessageEvent, ctx: NormalizeContext): Promise<IncomingMessage> {
  const userId = event.user ?? '';
  const { text, mentions } = readSlackText(event.text ?? '', { botUserId: ctx.botUserId });
  const [author, ...mentioned] = await Promise.all([ctx.users.named(userId), ...mentions.map((m) => ctx.users.named(m.id))]);
  return {
    platform: 'slack',
    workspaceId: ctx.teamId,
    channelId: event.channel,
    ...(ctx.threadTs && { threadId: ctx.threadTs }),
    messageId: event.ts,
    author: { id: userId, displayName: author!.displayName },
    text,
    ...(ctx.images?.length && { images: ctx.images }),
    ...(ctx.audio?.length && { audio: ctx.audio }),
    ...(ctx.documents?.length && { documents: ctx.documents }),
    ...(mentions.length > 0 && {
      mentions: mentions.map((m, i): Mention => ({ id: m.id, displayName: mentioned[i]!.displayName, raw: m.raw })),
    }),
    isDirect: event.channel_type === 'im',
  };
}
