/**
 * What Herald answers outside the assistant container: a mention (in its thread), a direct message, and a
 * follow-up in a thread it has replied in. Bots and Herald's own messages are ignored. Deletions, wherever they
 * happen, go to the answers in progress; a person's edit of a question still addressed to Herald (the assistant's
 * included) may replace its answer.
 */
import type { App } from '@slack/bolt';
import { answerEdit, answerMessage } from './answer-message.ts';
import type { DeletionEvent } from './deletion-watch.ts';
import type { SlackRuntime } from './runtime.ts';
import { editOf, isFromPerson, mentionsUser, type SlackEdit, type SlackMessageChangedEvent, type SlackMessageEvent } from './slack-event.ts';

export function registerMessageListeners(app: App, rt: SlackRuntime): void {
  const { botUserId, teamId } = rt.identity;

  app.event('app_mention', async ({ event }) => {
    const mention = event as unknown as SlackMessageEvent;
    if (!isFromPerson(mention, botUserId)) return;
    rt.run('mention', (signal) => answerMessage(rt, mention, { threadTs: mention.thread_ts ?? mention.ts }, signal));
  });

  app.message(async ({ message }) => {
    rt.deletions.observe(message as DeletionEvent);
    const edit = editOf(message as SlackMessageChangedEvent, botUserId);
    if (edit) {
      answerEditIfAddressed(rt, edit);
      return;
    }
    const event = message as unknown as SlackMessageEvent;
    if (!isFromPerson(event, botUserId)) return;
    // Replies in DM threads belong to the assistant container (Bolt's Assistant takes them before this).
    if (event.channel_type === 'im') {
      rt.run('direct message', (signal) => answerMessage(rt, event, { threadTs: event.thread_ts }, signal));
      return;
    }
    // Slack sends a mention both as app_mention and as this message, and now and then only as this message
    // (a file shared with a mention): whichever comes first is answered, the other finds the message claimed.
    if (mentionsUser(event.text, botUserId)) {
      rt.run('mention', (signal) => answerMessage(rt, event, { threadTs: event.thread_ts ?? event.ts }, signal));
      return;
    }
    // A thread follow-up only where Herald has replied.
    const threadTs = event.thread_ts;
    if (!threadTs) return;
    rt.run('thread follow-up', async (signal) => {
      if (await rt.threads.has(teamId, event.channel, threadTs)) await answerMessage(rt, event, { threadTs }, signal);
    });
  });
}

/**
 * An edited question is answered again where it would be answered as a new message: in a DM, for a mention, or as a
 * follow-up in a thread Herald replied in. A thread's first message is no follow-up: a mention edited out of it is
 * left alone.
 */
function answerEditIfAddressed(rt: SlackRuntime, edit: SlackEdit): void {
  const { botUserId, teamId } = rt.identity;
  const event = edit.message;
  if (event.channel_type === 'im') {
    rt.run('edited direct message', (signal) => answerEdit(rt, edit, { threadTs: event.thread_ts }, signal));
    return;
  }
  if (mentionsUser(event.text, botUserId)) {
    rt.run('edited mention', (signal) => answerEdit(rt, edit, { threadTs: event.thread_ts ?? event.ts }, signal));
    return;
  }
  const threadTs = event.thread_ts;
  if (!threadTs || threadTs === event.ts) return;
  rt.run('edited thread follow-up', async (signal) => {
    if (await rt.threads.has(teamId, event.channel, threadTs)) await answerEdit(rt, edit, { threadTs }, signal);
  });
}
