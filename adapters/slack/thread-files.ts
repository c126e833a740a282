/**
 * Slack messages cannot reply to one message, so in a thread "@Herald summarize this" points at the files above
 * it. A message Herald answers in a thread without files of its own is read with the files people shared there
 * since Herald's last reply (in the whole thread, its root included, before Herald's first), found with a single
 * conversations.replies call. Files Herald has answered about are not sent again: the conversation's history holds
 * what it read.
 */
import { isPresent, type SlackFile } from './incoming-files.ts';
import type { SlackRuntime } from './runtime.ts';
import { isFromPerson, type SlackMessageEvent } from './slack-event.ts';

/** As many files as one Slack message carries: the newest are read. */
const MAX_THREAD_FILES = 10;
/** conversations.replies' largest page. */
const PAGE_LIMIT = 1000;
/**
 * Thread lookups share conversations.replies' workspace budget (50 a minute) with the recent-messages tool; when
 * it is spent, an answer goes ahead without the thread's files rather than wait for the next call.
 */
const MAX_LOOKUP_WAIT_MS = 500;
/** Long enough for Herald's reply to a message to be in its thread, which then hides the message's files. */
const TAKEN_TTL_MS = 2 * 60 * 60_000;

interface ThreadMessage {
  ts: string;
  subtype?: string;
  user?: string;
  bot_id?: string;
  files?: SlackFile[];
}

/** Marks a message whose files Herald is answering with it, so a question right after it does not send them again. */
function takenKey(channel: string, ts: string): string {
  return `slack:files-taken:${channel}:${ts}`;
}

/** The files to read with a message: its own, else, in a thread, those it points at. */
export async function filesToRead(rt: SlackRuntime, event: SlackMessageEvent): Promise<SlackFile[]> {
  const own = (event.files ?? []).filter(isPresent);
  if (own.length > 0) {
    await rt.core.store.set(takenKey(event.channel, event.ts), 1, TAKEN_TTL_MS);
    return own;
  }
  const threadTs = event.thread_ts;
  if (!threadTs || threadTs === event.ts) return [];
  if (rt.api.budget.waitMs('conversations.replies') > MAX_LOOKUP_WAIT_MS) {
    rt.logger.info({ channel: event.channel }, 'Slack thread not searched for files: the conversations.replies budget is spent');
    return [];
  }
  try {
    return await threadFiles(rt, event.channel, threadTs, event.ts);
  } catch (error) {
    rt.logger.warn({ err: error, channel: event.channel }, 'Slack thread could not be read for its files');
    return [];
  }
}

async function threadFiles(rt: SlackRuntime, channel: string, threadTs: string, askedTs: string): Promise<SlackFile[]> {
  const { teamId, botUserId, botId } = rt.identity;
  // Herald's reply to the message it last answered comes after that message: nothing before it can count. An edit of
  // that very message is read as it was the first time.
  const lastAnswered = await rt.threads.lastAnswered(teamId, channel, threadTs);
  const answeredTs = lastAnswered === askedTs ? undefined : lastAnswered;
  const page = await rt.api.call('conversations.replies', undefined, (c) =>
    c.conversations.replies({ channel, ts: threadTs, latest: askedTs, limit: PAGE_LIMIT, ...(answeredTs && { oldest: answeredTs }) }),
  );
  // The messages nearest the question would be on later pages: too far from it to tell what it points at.
  if (page.has_more) return [];
  // Slack puts the root first whatever `oldest` says; it is never after the message Herald answered.
  const messages = ((page.messages ?? []) as ThreadMessage[]).filter((m) => answeredTs === undefined || m.ts !== threadTs);
  const lastReply = messages.findLastIndex((m) => m.user === botUserId || (botId !== undefined && m.bot_id === botId));
  const shared = messages.slice(lastReply + 1).filter((m) => m.ts !== askedTs && isFromPerson(m, botUserId) && (m.files ?? []).some(isPresent));
  const taken = await Promise.all(shared.map((m) => rt.core.store.get(takenKey(channel, m.ts))));
  const files = shared.filter((_, i) => taken[i] === undefined).flatMap((m) => (m.files ?? []).filter(isPresent));
  const unique = [...new Map(files.map((f) => [f.id, f])).values()];
  return unique.slice(-MAX_THREAD_FILES);
}
