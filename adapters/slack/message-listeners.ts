/**
 * What Herald answers outside the assistant container: a mention (in its thread), a direct message, and a
 * follow-up in a thread it has replied in. Bots and Herald's own messages are ignored. Deletions, wherever they
 * happen, go to the core (answers in progress stop, a deleted question is forgotten); a person's edit of a question still addressed to Herald (the assistant's
 * included) may replace its answer.
 */
import type { App } from '@slack/bolt';
import { deletedTs, type DeletionEvent } from './deleted-message.ts';
import { messageKey, tsMs } from './message-key.ts';
import type { SlackRuntime } from './runtime.ts';
import { editOf, isFromPerson, mentionsUser, type SlackEdit, type SlackMessageChangedEvent, type SlackMessageEvent } from './slack-event.ts';
import { slackQuestion, type AnswerOptions } from './slack-question.ts';
import { summarizeOnMention, summaryMention } from './summary-listeners.ts';

export function registerMessageListeners(app: App, rt: SlackRuntime): void {
  const { botUserId, teamId } = rt.identity;

  app.event('app_mention', async ({ event }) => {
    const mention = event as unknown as SlackMessageEvent;
    if (!isFromPerson(mention, botUserId)) return;
    const summary = summaryMention(mention, botUserId);
    if (summary) return summarizeOnMention(rt, mention, summary);
    ask(rt, 'mention', mention, { threadTs: mention.thread_ts ?? mention.ts });
  });

  app.message(async ({ message }) => {
    const deleted = deletedTs(message as DeletionEvent);
    if (deleted !== undefined) {
      const { channel } = message as DeletionEvent;
      rt.history.cache.forget(deleted);
      if (channel !== undefined) rt.run('deletion', () => rt.flow.deleted([messageKey(channel, deleted)]));
      return;
    }
    const changed = message as SlackMessageChangedEvent;
    if (changed.subtype === 'message_changed' && changed.message?.ts) rt.history.cache.forget(changed.message.ts);
    const edit = editOf(changed, botUserId);
    if (edit) {
      answerEditIfAddressed(rt, edit);
      return;
    }
    const event = message as unknown as SlackMessageEvent;
    if (event.user !== botUserId && changed.subtype !== 'message_changed') rt.history.cache.forgetChannel(event.channel);
    if (!isFromPerson(event, botUserId)) return;
    // Replies in DM threads belong to the assistant container (Bolt's Assistant takes them before this).
    if (event.channel_type === 'im') {
      ask(rt, 'direct message', event, { threadTs: event.thread_ts });
      return;
    }
    // Slack sends a mention both as app_mention and as this message, and now and then only as this message
    // (a file shared with a mention): whichever comes first is answered, the other finds the message claimed.
    if (mentionsUser(event.text, botUserId)) {
      const summary = summaryMention(event, botUserId);
      if (summary) summarizeOnMention(rt, event, summary);
      else ask(rt, 'mention', event, { threadTs: event.thread_ts ?? event.ts });
      return;
    }
    // A thread follow-up only where Herald has replied.
    const threadTs = event.thread_ts;
    if (!threadTs) return;
    rt.ask('thread follow-up', async (signal) => {
      if (await rt.threads.has(teamId, event.channel, threadTs)) await rt.flow.asked(slackQuestion(rt, event, { threadTs }), signal);
    });
  });
}

/** Hands a new question to the core once the event is acknowledged. */
function ask(rt: SlackRuntime, label: string, event: SlackMessageEvent, options: AnswerOptions): void {
  rt.ask(label, (signal) => rt.flow.asked(slackQuestion(rt, event, options), signal));
}

function askAgain(rt: SlackRuntime, edit: SlackEdit, options: AnswerOptions, signal: AbortSignal): Promise<void> {
  return rt.flow.edited(slackQuestion(rt, edit.message, options), tsMs(edit.editedTs), signal);
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
    rt.ask('edited direct message', (signal) => askAgain(rt, edit, { threadTs: event.thread_ts }, signal));
    return;
  }
  if (mentionsUser(event.text, botUserId)) {
    rt.ask('edited mention', (signal) => askAgain(rt, edit, { threadTs: event.thread_ts ?? event.ts }, signal));
    return;
  }
  const threadTs = event.thread_ts;
  if (!threadTs || threadTs === event.ts) return;
  rt.ask('edited thread follow-up', async (signal) => {
    if (await rt.threads.has(teamId, event.channel, threadTs)) await askAgain(rt, edit, { threadTs }, signal);
  });
}
