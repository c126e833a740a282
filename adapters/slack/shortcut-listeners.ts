/**
 * Herald's message actions as Slack message shortcuts (a message's "More actions" menu; the manifest lists the same
 * callback_ids). Each is acknowledged at once and run afterwards. Answers are the presser's alone, in the message's
 * channel or thread; a file (Read aloud's WAV) cannot be ephemeral on Slack, so it goes to the presser's DM with Herald.
 */
import type { App, MessageShortcut, RespondFn } from '@slack/bolt';
import { messageActions } from '../../commands/index.ts';
import type { MessageActionContext, MessageActionDefinition, TargetMessage } from '../../commands/message-action.ts';
import { runMessageAction } from '../../commands/run-message-action.ts';
import { postEphemeralApproval } from './approval-message.ts';
import { postEphemeral, replyEphemerally, type EphemeralTarget } from './ephemeral-reply.ts';
import { fetchFileBytes, fileName, isPresent, type SlackFile } from './incoming-files.ts';
import { readSlackText } from './incoming-text.ts';
import type { SlackRuntime } from './runtime.ts';
import { shareFile } from './upload.ts';
import { userLocale } from './user-locale.ts';

/** The actions Slack offers as shortcuts: those that need no question first (Slack would need a modal for it). */
export const slackShortcuts = messageActions.filter((action) => !action.prompt);

export function registerShortcutListeners(app: App, rt: SlackRuntime): void {
  for (const action of slackShortcuts) {
    app.shortcut<MessageShortcut>({ type: 'message_action', callback_id: action.id }, async ({ shortcut, ack, respond }) => {
      await ack();
      rt.run(`shortcut ${action.id}`, () => runShortcut(rt, action, shortcut, respond));
    });
  }
}

interface ShortcutMessage {
  ts: string;
  text?: string;
  user?: string;
  bot_id?: string;
  thread_ts?: string;
  files?: SlackFile[];
}

/** The message the shortcut was picked on: its text with mentions as names, its files fetched only when read. */
async function targetOf(rt: SlackRuntime, message: ShortcutMessage): Promise<TargetMessage> {
  const authorId = message.user ?? message.bot_id ?? '';
  const [author, shown] = await Promise.all([rt.users.named(authorId), rt.users.mentionsAsNames(readSlackText(message.text ?? ''))]);
  const files = (message.files ?? []).filter(isPresent).map((file) => ({
    name: fileName(file),
    ...(file.mimetype && { contentType: file.mimetype }),
    size: file.size ?? 0,
    isVoiceMessage: file.subtype === 'slack_audio',
    fetch: () => fetchFileBytes(rt.api, file),
  }));
  return {
    id: message.ts,
    text: shown,
    author: { id: authorId, displayName: author.displayName, isBot: message.bot_id !== undefined || author.isBot },
    files,
    sentAt: Math.round(Number(message.ts) * 1000),
  };
}

/** Runs a message action as the presser asked for it from a message's menu; answers are theirs alone. */
export async function runShortcut(rt: SlackRuntime, action: MessageActionDefinition, shortcut: MessageShortcut, respond: RespondFn): Promise<void> {
  const message = shortcut.message as ShortcutMessage;
  const channel = shortcut.channel.id;
  const userId = shortcut.user.id;
  const ephemeral: EphemeralTarget = { channel, ...(message.thread_ts && { threadTs: message.thread_ts }), userId, respond };
  const [person, locale, target] = await Promise.all([rt.users.named(userId), userLocale(rt.api, userId), targetOf(rt, message)]);
  const ctx: MessageActionContext = {
    platform: 'slack',
    workspaceId: rt.identity.teamId,
    channelId: channel,
    ...(message.thread_ts && { threadId: message.thread_ts }),
    invocationId: shortcut.trigger_id,
    user: { id: userId, displayName: person.displayName, isAdmin: false },
    isDirect: channel.startsWith('D'),
    uploadLimitBytes: rt.core.config.media.uploadLimitBytes,
    voiceMessages: false,
    workspace: rt.history.forQuestion(
      userId,
      { channel, isDirectMessage: channel.startsWith('D'), ...(message.thread_ts && { threadTs: message.thread_ts }) },
      { heraldId: rt.identity.botUserId },
    ),
    target,
    ephemeral: true,
    ...(locale && { locale }),
    // The shortcut was acknowledged when it arrived; everything after is a follow-up.
    defer: async () => {},
    reply: (text) => postEphemeral(rt.api, ephemeral, text),
    approve: (request, signal) =>
      rt.flow.approve({ request, askerId: userId, show: (view) => postEphemeralApproval(rt.api, ephemeral, view), signal }),
    replyStream: (stream) => replyEphemerally(rt, ephemeral, stream),
    async upload(file, text) {
      const opened = await rt.api.call('chat.postMessage', userId, (c) =>
        c.chat.postMessage({
          channel: userId,
          text: text ?? `🔊 ${action.name}: the message you picked, as a ${file.name.split('.').pop()?.toUpperCase()} file.`,
        }),
      );
      await shareFile(rt.api, { channel: String(opened.channel) }, { name: file.name, data: file.data });
      await postEphemeral(rt.api, ephemeral, `I sent you the file in our direct messages: Slack can't show files to you alone here.`);
    },
  };
  await runMessageAction(action, ctx, rt.core);
}
