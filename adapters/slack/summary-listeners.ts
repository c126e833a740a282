/**
 * Summaries of a Slack thread, where Slack runs no slash command: the message shortcut "Summarize thread" (on any
 * message of the thread, or the one that started it), and "@Herald summarize" written in the thread. Both answer
 * the asker alone; "@Herald summarize post" posts it in the thread for everyone.
 */
import type { App, MessageShortcut } from '@slack/bolt';
import type { MessageActionDefinition } from '../../commands/message-action.ts';
import { replySummary } from '../../commands/summarize.ts';
import { MAX_SUMMARY_MESSAGES } from '../../src/workspace/summarize.ts';
import { messageKey } from './message-key.ts';
import type { SlackRuntime } from './runtime.ts';
import { runShortcut } from './shortcut-listeners.ts';
import type { SlackMessageEvent } from './slack-event.ts';
import { slackCommandContext } from './command-context.ts';

/** The thread of the message pressed on: the one it is in, or the one it started. */
const summarizeThread: MessageActionDefinition = {
  id: 'summarize_thread',
  name: 'Summarize thread',
  description: "Catch up on this message's thread, citing its messages",
  async run(ctx, services) {
    const range = { channelId: ctx.channelId, threadId: ctx.threadId ?? ctx.target.id, limit: MAX_SUMMARY_MESSAGES };
    await replySummary(ctx, services, { range, post: false });
  },
};

/** Shortcuts of Slack's alone, beside the message actions every platform offers. */
export const summaryShortcuts: readonly MessageActionDefinition[] = [summarizeThread];

/** `<@Herald> summarize` (or `summarise`, `summary`), optionally followed by `post`, and nothing else. */
const SUMMARY_REQUEST = /^\s*<@([A-Z0-9]+)(?:\|[^>]*)?>\s*(?:summari[sz]e|summary)(\s+(?:--)?post)?\s*[.!]?\s*$/i;

/** Whether a mention in a thread asks for the thread's summary; `post` when it asks to post it for everyone. */
export function summaryMention(event: SlackMessageEvent, botUserId: string): { post: boolean } | undefined {
  if (event.thread_ts === undefined) return undefined;
  const match = SUMMARY_REQUEST.exec(event.text ?? '');
  if (!match || match[1] !== botUserId) return undefined;
  return { post: match[2] !== undefined };
}

export function registerSummaryListeners(app: App, rt: SlackRuntime): void {
  app.shortcut<MessageShortcut>({ type: 'message_action', callback_id: summarizeThread.id }, async ({ shortcut, ack, respond }) => {
    await ack();
    rt.run(`shortcut ${summarizeThread.id}`, () => runShortcut(rt, summarizeThread, shortcut, respond));
  });
}

/**
 * Summarizes the thread a summary mention was written in, once however often Slack delivers it (as app_mention and
 * as a message): the asker's alone unless they asked to post it.
 */
export function summarizeOnMention(rt: SlackRuntime, event: SlackMessageEvent, request: { post: boolean }): void {
  const threadTs = event.thread_ts!;
  const userId = event.user!;
  rt.run('summary mention', async () => {
    if (!(await rt.flow.firstDelivery(`summary:${messageKey(event.channel, event.ts)}`))) return;
    const person = await rt.users.get(userId);
    const command = slackCommandContext(rt, {
      invocation: { channelId: event.channel, userId, triggerId: event.ts, isDirect: event.channel_type === 'im', threadTs },
      options: new Map(),
      displayName: person.displayName,
      isAdmin: false,
      // Only used where Herald is not a member, and Slack delivers mentions only where it is.
      respond: () => Promise.reject(new Error('a mention has no response_url')),
    });
    const place = { channel: event.channel, isDirectMessage: event.channel_type === 'im', threadTs };
    const ctx = { ...command, workspace: rt.history.forQuestion(userId, place, { heraldId: rt.identity.botUserId, questionId: event.ts }) };
    await replySummary(ctx, rt.core, { range: { channelId: event.channel, threadId: threadTs, limit: MAX_SUMMARY_MESSAGES }, post: request.post });
  });
}
