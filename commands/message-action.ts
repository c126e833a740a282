import type { ConversationEngine } from '../src/conversation/engine.ts';
import type { IncomingAudio, IncomingDocument, IncomingImage, IncomingMessage } from '../src/conversation/types.ts';
import { attachmentKind, type AttachmentKind } from '../src/media/attachment-kind.ts';
import type { CommandAttachment, CommandServices, InvocationContext } from './command.ts';
import { messageFromCommand } from './incoming.ts';

/** A file of the target message, fetched only when the action needs its bytes. */
export interface TargetFile extends CommandAttachment {
  /** A recorded voice message rather than an attached audio file. */
  isVoiceMessage: boolean;
}

/** The message an action was run on, as the presser saw it. */
export interface TargetMessage {
  id: string;
  /** Its text, mentions already shown as names. */
  text: string;
  author: { id: string; displayName: string; isBot: boolean };
  files: readonly TargetFile[];
  /** A link to the message, where the platform has one. */
  link?: string;
  /** When it was sent, in ms since the epoch. */
  sentAt: number;
}

/** A question the platform asks the presser before the action runs (a Discord modal). */
export interface ActionPrompt {
  /** At most 45 characters. */
  title: string;
  /** At most 45 characters. */
  label: string;
  /** At most 100 characters. */
  placeholder?: string;
  maxLength: number;
  /** Offers to post the answer for everyone instead of to the presser alone. */
  offerPublic?: boolean;
}

/**
 * What an adapter gives a message action: the invocation (in the channel and thread of the target message), the
 * target, and whether replies are the presser's alone (the default; `reply` and `replyStream` follow it). Questions
 * to the engine go through `answerScope` (messageAbout does).
 */
export interface MessageActionContext extends InvocationContext {
  target: TargetMessage;
  ephemeral: boolean;
  /** The presser's language (BCP 47, e.g. `fr`, `pt-BR`), where the platform gives it. */
  locale?: string;
  /** What the presser answered to the action's prompt. */
  input?: string;
}

/** An action on a message, run from its menu without typing a command (Discord message commands, Slack shortcuts). */
export interface MessageActionDefinition {
  /** Stable identifier: Slack's callback_id, and what Discord's modal custom_id carries. */
  id: string;
  /** The menu entry, at most 32 characters (Discord's limit). */
  name: string;
  /** What it does, in a line (Slack shows it under the shortcut; the manifest says the same). */
  description: string;
  prompt?: ActionPrompt;
  run(ctx: MessageActionContext, services: CommandServices): Promise<void>;
}

/** An action on the target's files of one kind (its images, its recordings); `none` is the reply when it has none. */
export function filesAction(action: {
  id: string;
  name: string;
  description: string;
  kind: AttachmentKind;
  none: string;
  answer(ctx: InvocationContext, engine: ConversationEngine, files: TargetFile[]): Promise<void>;
}): MessageActionDefinition {
  const { kind, none, answer, ...definition } = action;
  return {
    ...definition,
    async run(ctx, { engine }) {
      const files = ctx.target.files.filter((file) => attachmentKind(file.name, file.contentType, file.size) === kind);
      if (files.length === 0) return ctx.reply(none);
      await answer(answerScope(ctx), engine, files);
    },
  };
}

/**
 * The invocation as the engine is to see it. An answer only the presser sees stays out of the conversation everyone
 * in the channel or thread shares (later public answers would draw on it): it is a conversation of its own.
 */
export function answerScope(ctx: MessageActionContext): MessageActionContext {
  return ctx.ephemeral ? { ...ctx, threadId: `${ctx.threadId ?? ''}menu:${ctx.invocationId}` } : ctx;
}

/** The core's message for an action: `text` asked about the target, which is quoted as the message replied to. */
export function messageAbout(
  ctx: MessageActionContext,
  content: { text: string; images?: IncomingImage[]; audio?: IncomingAudio[]; documents?: IncomingDocument[] },
): IncomingMessage {
  const { target } = ctx;
  // The target is quoted even when it is Herald's: it may not be in this conversation's history.
  const replyTo = { messageId: target.id, authorName: target.author.displayName, text: target.text };
  return messageFromCommand(answerScope(ctx), { ...content, replyTo });
}
