/**
 * A Slack conversation's history for one asker: conversations.history (newest first) or conversations.replies
 * (a thread, oldest first) in pages of 200 with cursors, within the pages a question may fetch. Calls go through a
 * client that does not wait out a 429: Slack gives distributed apps outside the Marketplace one history call a
 * minute of 15 messages, and a question cannot wait minutes; a refused call or such a short page stops the read,
 * and the answer says how far back Herald got.
 */
import { webApi } from '@slack/bolt';
import type { Logger } from '../../src/log/logger.ts';
import type { HistoryCache } from '../../src/workspace/history-cache.ts';
import { messageText } from '../../src/workspace/message-text.ts';
import { pageBudgetNote, readExtent } from '../../src/workspace/read-extent.ts';
import { SharedFileReader, type SharedFile } from '../../src/workspace/shared-file-text.ts';
import type { HistoryRange, HistoryRead, WorkspaceHistory, WorkspaceMessage } from '../../src/workspace/workspace-history.ts';
import { slackFileRequest } from './file-download.ts';
import { fileName, isPresent, type SlackFile } from './incoming-files.ts';
import { readSlackText } from './incoming-text.ts';
import { tsMs } from './message-key.ts';
import { boltLogger, type SlackApi, type WebClient } from './slack-api.ts';
import type { UserDirectory } from './user-directory.ts';
import { readableConversation, type ConversationFacts, type SlackAnswerPlace } from './workspace-access.ts';

const PAGE_SIZE = 200;
/** What Slack serves a page to a distributed app outside the Marketplace since 2025. */
const LIMITED_PAGE = 15;
/** Subtypes that are people's (or bots') messages; joins, topic changes and tombstones are not. */
const SHOWN_SUBTYPES = new Set([undefined, 'file_share', 'thread_broadcast', 'bot_message', 'me_message']);

interface HistoryMessage {
  ts: string;
  thread_ts?: string;
  user?: string;
  bot_id?: string;
  username?: string;
  text?: string;
  subtype?: string;
  files?: SlackFile[];
}

interface Page {
  messages: HistoryMessage[];
  hasMore: boolean;
  cursor?: string;
}

/** Shared by every question of one Slack connection: the read cache and a client that reports 429s at once. */
export class SlackHistory {
  readonly api: SlackApi;
  readonly users: UserDirectory;
  readonly cache: HistoryCache;
  readonly maxPages: number;
  readonly client: WebClient;

  constructor(options: { api: SlackApi; users: UserDirectory; cache: HistoryCache; maxPages: number; logger: Logger }) {
    this.api = options.api;
    this.users = options.users;
    this.cache = options.cache;
    this.maxPages = options.maxPages;
    this.client = new webApi.WebClient(options.api.botToken, {
      slackApiUrl: options.api.apiUrl,
      logger: boltLogger(options.logger),
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 1, minTimeout: 200, maxTimeout: 1000 },
    });
  }

  /** The history one asker may read, for an answer posted at `place` (in the thread `threadTs`, if asked in one). */
  forQuestion(askerId: string, place: SlackAnswerPlace & { threadTs?: string }, ids: { heraldId: string; questionId?: string }): WorkspaceHistory {
    return new SlackWorkspace(this, askerId, place, ids);
  }
}

class SlackWorkspace implements WorkspaceHistory {
  readonly here: { channelId: string; threadId?: string };
  readonly heraldId: string;
  readonly questionId: string | undefined;
  readonly #history: SlackHistory;
  readonly #askerId: string;
  readonly #place: SlackAnswerPlace;

  constructor(
    history: SlackHistory,
    askerId: string,
    place: SlackAnswerPlace & { threadTs?: string },
    ids: { heraldId: string; questionId?: string },
  ) {
    this.heraldId = ids.heraldId;
    this.questionId = ids.questionId;
    this.#history = history;
    this.#askerId = askerId;
    this.#place = { channel: place.channel, isDirectMessage: place.isDirectMessage };
    this.here = { channelId: place.channel, ...(place.threadTs && { threadId: place.threadTs }) };
  }

  async read(range: HistoryRange, signal: AbortSignal): Promise<HistoryRead> {
    const { api, client, cache } = this.#history;
    const facts = await readableConversation(api, client, { channel: range.channelId, askerId: this.#askerId, place: this.#place });
    const cached = cache.get(range);
    if (cached) return cached;
    const read = await this.#fetch(facts, range, signal);
    cache.set(range, read);
    return read;
  }

  async channelNamed(name: string): Promise<string | undefined> {
    const id = /^<#([CGD][A-Z0-9]+)(?:\|[^>]*)?>$/.exec(name)?.[1] ?? (/^[CGD][A-Z0-9]{8,}$/.test(name) ? name : undefined);
    if (id) return id;
    const wanted = name.replace(/^#/, '').toLowerCase();
    const { api, client } = this.#history;
    let cursor: string | undefined;
    for (let page = 0; page < 3; page += 1) {
      const response = await api.call('conversations.list', undefined, () =>
        client.conversations.list({ types: 'public_channel,private_channel', exclude_archived: true, limit: 1000, ...(cursor && { cursor }) }),
      );
      const found = response.channels?.find((c) => c.name?.toLowerCase() === wanted);
      if (found?.id) return found.id;
      cursor = response.response_metadata?.next_cursor || undefined;
      if (!cursor) return undefined;
    }
    return undefined;
  }

  async #fetch(facts: ConversationFacts, range: HistoryRange, signal: AbortSignal): Promise<HistoryRead> {
    const thread = range.threadId;
    const kept: HistoryMessage[] = [];
    let cursor: string | undefined;
    let pages = 0;
    let more = true;
    let limited = false;
    while (more && kept.length < range.limit && pages < this.#history.maxPages) {
      signal.throwIfAborted();
      let page: Page;
      try {
        page = await this.#page(range, cursor);
      } catch (error) {
        if ((error as { code?: string }).code !== webApi.ErrorCode.RateLimitedError) throw error;
        limited = true;
        break;
      }
      pages += 1;
      kept.push(...page.messages);
      more = page.hasMore;
      cursor = page.cursor;
      if (more && page.messages.length <= LIMITED_PAGE) {
        limited = true;
        break;
      }
      if (!cursor) more = false;
    }
    const chosen = thread ? kept.slice(-range.limit) : kept.slice(0, range.limit).reverse();
    // A thread's first page leads with its parent whatever the bounds say.
    const shown = chosen.filter((m) => SHOWN_SUBTYPES.has(m.subtype) && inRange(m, range));
    const messages = await this.#toWorkspaceMessages(facts, shown, range, signal);
    const order = thread ? 'oldest-first' : 'newest-first';
    const cutShort = limited ? limitedNote(messages, order) : more && kept.length < range.limit ? pageBudgetNote(messages, order) : undefined;
    return { messages, ...(cutShort && { cutShort }) };
  }

  async #page(range: HistoryRange, cursor: string | undefined): Promise<Page> {
    const { api, client } = this.#history;
    const channel = range.channelId;
    const oldest = range.fromId ?? (range.since !== undefined ? (range.since / 1000).toFixed(6) : undefined);
    const bounds = { ...(oldest && { oldest, inclusive: true }), ...(cursor && { cursor }), limit: PAGE_SIZE };
    const response = range.threadId
      ? await api.call('conversations.replies', undefined, () => client.conversations.replies({ channel, ts: range.threadId!, ...bounds }))
      : await api.call('conversations.history', undefined, () => client.conversations.history({ channel, ...bounds }));
    const next = response.response_metadata?.next_cursor || undefined;
    return { messages: (response.messages ?? []) as HistoryMessage[], hasMore: response.has_more === true, ...(next && { cursor: next }) };
  }

  async #toWorkspaceMessages(
    facts: ConversationFacts,
    messages: HistoryMessage[],
    range: HistoryRange,
    signal: AbortSignal,
  ): Promise<WorkspaceMessage[]> {
    if (messages.length === 0) return [];
    const { api, users } = this.#history;
    const channelName = facts.is_im ? (facts.user ? (await users.get(facts.user)).displayName : 'direct message') : (facts.name ?? range.channelId);
    const link = await this.#linker(range.channelId, messages.at(-1)!.ts);
    const files = new SharedFileReader();
    const out: WorkspaceMessage[] = [];
    for (const m of messages) {
      const readable = await users.mentionsAsNames(readSlackText(m.text ?? ''));
      const shared = (m.files ?? []).filter(isPresent).flatMap((f) => sharedFile(api, f));
      const fileText = shared.length > 0 ? await files.textOf(shared, signal) : '';
      const author = m.user ? (await users.get(m.user)).displayName : (m.username ?? 'a bot');
      const threadId = m.thread_ts && m.thread_ts !== m.ts ? m.thread_ts : undefined;
      out.push({
        id: m.ts,
        channelId: range.channelId,
        channelName,
        ...(threadId && { threadId }),
        authorId: m.user ?? m.bot_id ?? '',
        author,
        isBot: m.bot_id !== undefined,
        text: messageText([readable, fileText]),
        sentAt: tsMs(m.ts),
        link: link(m.ts, threadId),
      });
    }
    return out;
  }

  /**
   * Permalinks for the conversation's messages from one chat.getPermalink: Slack's links differ only in the
   * message's ts (and a reply's thread), so the others are made from it.
   */
  async #linker(channel: string, sampleTs: string): Promise<(ts: string, threadTs?: string) => string> {
    const { api, client } = this.#history;
    const sample =
      (await api.call('chat.getPermalink', undefined, () => client.chat.getPermalink({ channel, message_ts: sampleTs }))).permalink ?? '';
    const url = new URL(sample);
    const marker = `p${sampleTs.replace('.', '')}`;
    const base = url.pathname.endsWith(marker) ? `${url.origin}${url.pathname.slice(0, -marker.length)}` : `${url.origin}/archives/${channel}/`;
    return (ts, threadTs) => `${base}p${ts.replace('.', '')}${threadTs ? `?thread_ts=${threadTs}&cid=${channel}` : ''}`;
  }
}

function inRange(message: HistoryMessage, range: HistoryRange): boolean {
  if (range.since !== undefined && tsMs(message.ts) < range.since) return false;
  return range.fromId === undefined || Number(message.ts) >= Number(range.fromId);
}

function sharedFile(api: SlackApi, file: SlackFile): SharedFile[] {
  const url = file.url_private_download ?? file.url_private;
  if (!url) return [];
  const options = { botToken: api.botToken, extraTokenHosts: [new URL(api.apiUrl).host] };
  return [{ request: slackFileRequest(url, fileName(file), options, file.size), mime: file.mimetype ?? null }];
}

function limitedNote(messages: WorkspaceMessage[], order: 'newest-first' | 'oldest-first'): string {
  return (
    `Slack lets this app read only ${LIMITED_PAGE} messages a minute here (apps outside the Slack Marketplace are limited since 2025), ` +
    `so I could read ${readExtent(messages, order)}. Installing Herald as the workspace's own app lifts this limit.`
  );
}
