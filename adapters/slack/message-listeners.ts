/**
 * What Herald answers outside the assistant container: a direct message, and in channels whatever the core finds
 * addressed to it (a mention, a follow-up in a thread it has replied in, a trigger word, any message where the channel
 * is answered without mentions), always in the message's thread. Bots and Herald's own messages are ignored.
 * Deletions, wherever they happen, go to the core (answers in progress stop, a deleted question is forgotten); a
 * person's edit of a question still addressed to Herald (the assistant's included) may replace its answer.
 */
import type { App } from '@slack/bolt';
import { addressedBy } from '../../src/platform/addressed.ts';
import { deletedTs, type DeletionEvent } from './deleted-message.ts';
import { messageKey, tsMs } from './message-key.ts';
import type { SlackRuntime } from './runtime.ts';
import {
  editOf,
  isFromPerson,
  mentionsOthers,
  mentionsUser,
  type SlackEdit,
  type SlackMessageChangedEvent,
  type SlackMessageEvent,
} from './slack-event.ts';
import { redelivered, slackQuestion, type AnswerOptions } from './slack-question.ts';
import { summarizeOnMention, summaryMention } from './summary-listeners.ts';

export function registerMessageListeners(app: App, rt: SlackRuntime): void {
  const { botUserId } = rt.identity;

  app.event('app_mention', async ({ event, context }) => {
    const mention = event as unknown as SlackMessageEvent;
    if (!isFromPerson(mention, botUserId)) return;
    const summary = summaryMention(mention, botUserId);
    if (summary) summarizeOnMention(rt, mention, summary);
    else rt.ask('mention', (signal) => askIfAddressed(rt, mention, signal, redelivered(context)));
  });

  app.message(async ({ message, context }) => {
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
      rt.ask('direct message', (signal) => rt.flow.asked(slackQuestion(rt, event, { threadTs: event.thread_ts }), signal, redelivered(context)));
      return;
    }
    // Slack sends a mention both as app_mention and as this message, and now and then only as this message
    // (a file shared with a mention): whichever comes first is answered, the other finds the message claimed.
    const summary = summaryMention(event, botUserId);
    if (summary) summarizeOnMention(rt, event, summary);
    else rt.ask('channel message', (signal) => askIfAddressed(rt, event, signal, redelivered(context)));
  });
}

/**
 * Where a channel message is answered, in its thread, when the core finds it addressed to Herald under the channel's
 * triggers; undefined to leave it alone. A thread's first message is no follow-up in it.
 */
async function answerOptions(rt: SlackRuntime, event: SlackMessageEvent): Promise<AnswerOptions | undefined> {
  const { botUserId, teamId } = rt.identity;
  const triggers = await rt.core.engine.triggersFor({ platform: 'slack', workspaceId: teamId, channelId: event.channel });
  const threadTs = event.thread_ts;
  const mentionsHerald = mentionsUser(event.text, botUserId);
  const inThread = threadTs !== undefined && threadTs !== event.ts;
  const addressed = addressedBy(
    {
      fromPerson: true,
      direct: false,
      mentionsHerald,
      repliesToHerald: false,
      // Read from the store only where it can decide.
      inHeraldThread: inThread && !mentionsHerald && (await rt.threads.has(teamId, event.channel, threadTs)),
      mentionsOthers: mentionsOthers(event.text, botUserId),
      text: event.text ?? '',
    },
    triggers,
  );
  return addressed && { threadTs: threadTs ?? event.ts, statusReactions: triggers.statusReactions };
}

async function askIfAddressed(rt: SlackRuntime, event: SlackMessageEvent, signal: AbortSignal, again: boolean): Promise<void> {
  const options = await answerOptions(rt, event);
  if (options) await rt.flow.asked(slackQuestion(rt, event, options), signal, again);
}

function askAgain(rt: SlackRuntime, edit: SlackEdit, options: AnswerOptions, signal: AbortSignal): Promise<void> {
  return rt.flow.edited(slackQuestion(rt, edit.message, options), tsMs(edit.editedTs), signal);
}

/** An edited question is answered again where it would be answered as a new message. */
function answerEditIfAddressed(rt: SlackRuntime, edit: SlackEdit): void {
  const event = edit.message;
  if (event.channel_type === 'im') {
    rt.ask('edited direct message', (signal) => askAgain(rt, edit, { threadTs: event.thread_ts }, signal));
    return;
  }
  rt.ask('edited message', async (signal) => {
    const options = await answerOptions(rt, event);
    if (options) await askAgain(rt, edit, options, signal);
  });
}
