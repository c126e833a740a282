import type {
  ConversationKey,
  IncomingAudio,
  IncomingDocument,
  IncomingImage,
  IncomingMessage,
  MessageFlags,
  ReplyReference,
} from '../src/conversation/types.ts';
import type { InvocationContext } from './command.ts';

/** The conversation a command was run in: its channel, or the thread it was run in. */
export function commandKey(ctx: InvocationContext): ConversationKey {
  return { platform: ctx.platform, workspaceId: ctx.workspaceId, channelId: ctx.channelId, threadId: ctx.threadId };
}

/** The core's message for a command invocation, in the conversation of the channel or thread it was run in. */
export function messageFromCommand(
  ctx: InvocationContext,
  content: {
    text: string;
    images?: IncomingImage[];
    audio?: IncomingAudio[];
    documents?: IncomingDocument[];
    flags?: MessageFlags;
    replyTo?: ReplyReference;
  },
): IncomingMessage {
  return {
    ...commandKey(ctx),
    messageId: ctx.invocationId,
    author: { id: ctx.user.id, displayName: ctx.user.displayName },
    isDirect: ctx.isDirect,
    ...content,
  };
}
