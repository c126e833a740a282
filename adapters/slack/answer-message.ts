/**
 * Answers one Slack message: claim it (one answer per message, across instances), read its files (in a thread,
 * those it points at when it has none), hand it to the core as an IncomingMessage, render the reply where it
 * belongs, and remember the thread (and the message answered there) for follow-ups, and the answer's messages for
 * an edit of the question to replace.
 */
import { replacingReply } from '../../src/conversation/replacement.ts';
import type { HandleOptions, IncomingMessage, ReplyStream } from '../../src/conversation/types.ts';
import { HeraldError } from '../../src/errors.ts';
import { claimMessage } from './event-dedupe.ts';
import { readMessageFiles } from './incoming-files.ts';
import { toMrkdwn } from './mrkdwn.ts';
import { toIncomingMessage } from './normalize.ts';
import { readRecentMessages } from './recent-messages.ts';
import type { ReplyTarget } from './reply-part.ts';
import type { SlackRuntime } from './runtime.ts';
import { sendReply, type ReplyOptions } from './send-reply.ts';
import { slackErrorCode } from './slack-api.ts';
import type { SlackEdit, SlackMessageEvent } from './slack-event.ts';
import { filesToRead } from './thread-files.ts';

export interface AnswerOptions {
  /** The thread to answer in (and the conversation's key); undefined: a DM's main timeline. */
  threadTs: string | undefined;
  /** Assistant threads show what the bot is doing with setStatus. */
  status?: ReplyOptions['status'];
  clearStatus?: ReplyOptions['clearStatus'];
}

/** How a reply can be stopped: by the user (the stream's stop button), or withdrawn with its question. */
interface Stops {
  signal: AbortSignal;
  cancel: AbortController;
  /** The question deleted, or edited to be answered again: the answer stops and goes. */
  withdrawn: AbortController;
}

export async function answerMessage(rt: SlackRuntime, event: SlackMessageEvent, options: AnswerOptions, signal: AbortSignal): Promise<void> {
  if (!(await claimMessage(rt.core.store, event.channel, event.ts))) return;
  const reply = withQuestionWatched(rt, event, signal, (stops) => answer(rt, event, options, stops));
  rt.answered.track(event.channel, event.ts, reply);
  await reply;
}

/**
 * A question Herald answered, edited to say something else: answered again in place of the old answer when the
 * engine agrees (it was the conversation's newest question, edited within the edit window). Nothing is shown until
 * then; the old answer goes (a reply still being written for it stops and takes down what it posted) and the new
 * one is written where the old one was.
 */
export async function answerEdit(rt: SlackRuntime, edit: SlackEdit, options: AnswerOptions, signal: AbortSignal): Promise<void> {
  const event = edit.message;
  if ((await rt.answered.messagesOf(event.channel, event.ts)) === undefined) return;
  const earlier = rt.answered.replying(event.channel, event.ts);
  const reply = withQuestionWatched(rt, event, signal, (stops) => replaceAnswer(rt, edit, options, stops, earlier));
  rt.answered.track(event.channel, event.ts, reply);
  await reply;
}

async function withQuestionWatched(rt: SlackRuntime, event: SlackMessageEvent, signal: AbortSignal, work: (stops: Stops) => Promise<void>): Promise<void> {
  const stops: Stops = { signal, cancel: new AbortController(), withdrawn: new AbortController() };
  const unwatch = rt.deletions.watch(event.channel, (ts) => {
    if (ts === event.ts) stops.withdrawn.abort();
  });
  try {
    await work(stops);
  } finally {
    unwatch();
  }
}

async function answer(rt: SlackRuntime, event: SlackMessageEvent, options: AnswerOptions, stops: Stops): Promise<void> {
  await rt.answered.remember(event.channel, event.ts, []);
  await options.status?.('thinking…').catch(() => {});
  const message = await readQuestion(rt, event, options, stops, { tellFileErrors: true });
  if (!message) return;
  await show(rt, event, options, rt.core.engine.handle(message, handleOptions(rt, event, options, stops)), stops);
}

async function replaceAnswer(rt: SlackRuntime, edit: SlackEdit, options: AnswerOptions, stops: Stops, earlier: Promise<void> | undefined): Promise<void> {
  const event = edit.message;
  const message = await readQuestion(rt, event, options, stops, { tellFileErrors: false });
  if (!message) return;
  const replaces = { messageId: event.ts, sentAt: tsMs(event.ts), editedAt: tsMs(edit.editedTs) };
  const stream = await replacingReply(rt.core.engine.handle(message, { ...handleOptions(rt, event, options, stops), replaces }));
  if (!stream) {
    rt.logger.info({ channel: event.channel, question: event.ts }, 'edited question not answered again: not the newest, or edited too late');
    return;
  }
  await earlier?.catch(() => {});
  await removeMessages(rt, event.channel, (await rt.answered.messagesOf(event.channel, event.ts)) ?? []);
  await rt.answered.remember(event.channel, event.ts, []);
  await show(rt, event, options, stream, stops);
}

/** The question as the core reads it; undefined when its files could not be read (said in the thread when `tellFileErrors`). */
async function readQuestion(
  rt: SlackRuntime,
  event: SlackMessageEvent,
  options: AnswerOptions,
  stops: Stops,
  { tellFileErrors }: { tellFileErrors: boolean },
): Promise<IncomingMessage | undefined> {
  const { teamId, botUserId } = rt.identity;
  const shared = await filesToRead(rt, event);
  let files;
  try {
    files = await readMessageFiles(rt.api, shared, AbortSignal.any([stops.signal, stops.withdrawn.signal]));
  } catch (error) {
    if (!(error instanceof HeraldError)) throw error;
    rt.logger.warn({ err: error, channel: event.channel }, 'Slack file could not be read');
    if (tellFileErrors) {
      await rt.api.call('chat.postMessage', event.channel, (c) =>
        c.chat.postMessage({ channel: event.channel, ...(options.threadTs && { thread_ts: options.threadTs }), text: `⚠️ ${toMrkdwn(error.message)}` }),
      );
    }
    return undefined;
  }
  return toIncomingMessage(event, { teamId, botUserId, users: rt.users, threadTs: options.threadTs, ...files });
}

function handleOptions(rt: SlackRuntime, event: SlackMessageEvent, options: AnswerOptions, stops: Stops): HandleOptions {
  return {
    signal: AbortSignal.any([stops.signal, stops.cancel.signal, stops.withdrawn.signal]),
    recentMessages: (limit) => readRecentMessages(rt.api, rt.users, { channel: event.channel, ...(options.threadTs && { threadTs: options.threadTs }) }, limit),
    onSuperseded: () => stops.withdrawn.abort(),
  };
}

async function show(rt: SlackRuntime, event: SlackMessageEvent, options: AnswerOptions, stream: ReplyStream, stops: Stops): Promise<void> {
  const { teamId } = rt.identity;
  const target: ReplyTarget = {
    channel: event.channel,
    ...(options.threadTs && { threadTs: options.threadTs }),
    ...(event.user && { recipient: { userId: event.user, teamId } }),
  };
  const sent = await sendReply(rt, stream, {
    target,
    ...(options.status && { status: options.status }),
    ...(options.clearStatus && { clearStatus: options.clearStatus }),
    onStoppedByUser: () => stops.cancel.abort(),
    withdrawn: stops.withdrawn.signal,
  });
  const withdrawn = sent.stopped === 'withdrawn';
  await rt.answered.remember(event.channel, event.ts, withdrawn ? [] : sent.messageTs);
  if (options.threadTs && !withdrawn) await rt.threads.remember(teamId, event.channel, options.threadTs, event.ts);
}

/** Deletes Herald's messages of an answer; one already deleted is left at that. */
async function removeMessages(rt: SlackRuntime, channel: string, messageTs: readonly string[]): Promise<void> {
  for (const ts of messageTs) {
    await rt.api.call('chat.delete', channel, (c) => c.chat.delete({ channel, ts })).catch((error: unknown) => {
      if (slackErrorCode(error) !== 'message_not_found') throw error;
    });
  }
}

/** A Slack ts ("1700000000.123456") as ms since the epoch. */
function tsMs(ts: string): number {
  return Math.round(Number(ts) * 1000);
}
