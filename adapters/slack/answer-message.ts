/**
 * Answers one Slack message: claim it (one answer per message, across instances), read its files (in a thread,
 * those it points at when it has none), hand it to the core as an IncomingMessage, render the reply where it
 * belongs, and remember the thread (and the message answered there) for follow-ups.
 */
import { HeraldError } from '../../src/errors.ts';
import { claimMessage } from './event-dedupe.ts';
import { readMessageFiles } from './incoming-files.ts';
import { toMrkdwn } from './mrkdwn.ts';
import { toIncomingMessage } from './normalize.ts';
import { readRecentMessages } from './recent-messages.ts';
import type { ReplyTarget } from './reply-part.ts';
import type { SlackRuntime } from './runtime.ts';
import { sendReply, type ReplyOptions } from './send-reply.ts';
import type { SlackMessageEvent } from './slack-event.ts';
import { filesToRead } from './thread-files.ts';

export interface AnswerOptions {
  /** The thread to answer in (and the conversation's key); undefined: a DM's main timeline. */
  threadTs: string | undefined;
  /** Assistant threads show what the bot is doing with setStatus. */
  status?: ReplyOptions['status'];
  clearStatus?: ReplyOptions['clearStatus'];
}

export async function answerMessage(rt: SlackRuntime, event: SlackMessageEvent, options: AnswerOptions, signal: AbortSignal): Promise<void> {
  if (!(await claimMessage(rt.core.store, event.channel, event.ts))) return;
  // The asker deleting the question withdraws it: the answer stops and goes.
  const withdrawn = new AbortController();
  const unwatch = rt.deletions.watch(event.channel, (ts) => {
    if (ts === event.ts) withdrawn.abort();
  });
  try {
    await answer(rt, event, options, signal, withdrawn.signal);
  } finally {
    unwatch();
  }
}

async function answer(rt: SlackRuntime, event: SlackMessageEvent, options: AnswerOptions, signal: AbortSignal, withdrawn: AbortSignal): Promise<void> {
  const { teamId, botUserId } = rt.identity;
  const target: ReplyTarget = {
    channel: event.channel,
    ...(options.threadTs && { threadTs: options.threadTs }),
    ...(event.user && { recipient: { userId: event.user, teamId } }),
  };
  await options.status?.('thinking…').catch(() => {});

  const shared = await filesToRead(rt, event);
  let files;
  try {
    files = await readMessageFiles(rt.api, shared, AbortSignal.any([signal, withdrawn]));
  } catch (error) {
    if (!(error instanceof HeraldError)) throw error;
    rt.logger.warn({ err: error, channel: event.channel }, 'Slack file could not be read');
    await rt.api.call('chat.postMessage', event.channel, (c) =>
      c.chat.postMessage({ channel: event.channel, ...(options.threadTs && { thread_ts: options.threadTs }), text: `⚠️ ${toMrkdwn(error.message)}` }),
    );
    return;
  }

  const message = await toIncomingMessage(event, { teamId, botUserId, users: rt.users, threadTs: options.threadTs, ...files });
  const cancel = new AbortController();
  const stream = rt.core.engine.handle(message, {
    signal: AbortSignal.any([signal, cancel.signal, withdrawn]),
    recentMessages: (limit) => readRecentMessages(rt.api, rt.users, { channel: event.channel, ...(options.threadTs && { threadTs: options.threadTs }) }, limit),
  });
  const sent = await sendReply(rt, stream, {
    target,
    ...(options.status && { status: options.status }),
    ...(options.clearStatus && { clearStatus: options.clearStatus }),
    onStoppedByUser: () => cancel.abort(),
    withdrawn,
  });
  if (options.threadTs && sent.stopped !== 'withdrawn') await rt.threads.remember(teamId, event.channel, options.threadTs, event.ts);
}
