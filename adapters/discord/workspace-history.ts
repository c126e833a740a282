/**
 * A Discord channel's or thread's history for one asker: GET /channels/{id}/messages in pages of 100, newest first
 * with `before`, within the pages a question may fetch; permissions are checked before every read, cached or not.
 */
import type { Client, Embed, Message, TextBasedChannel } from 'discord.js';
import type { DiscordAccess } from '../../src/config/config.ts';
import type { HistoryCache } from '../../src/workspace/history-cache.ts';
import { messageText } from '../../src/workspace/message-text.ts';
import { pageBudgetNote } from '../../src/workspace/read-extent.ts';
import { SharedFileReader } from '../../src/workspace/shared-file-text.ts';
import type { HistoryRange, HistoryRead, WorkspaceHistory, WorkspaceMessage } from '../../src/workspace/workspace-history.ts';
import { cdnRequest } from './attachments.ts';
import { readableChannel, type AnswerPlace } from './workspace-access.ts';

const PAGE_SIZE = 100;

export interface DiscordWorkspaceOptions {
  client: Client;
  askerId: string;
  /** Where the answer goes; also the default range. */
  place: AnswerPlace;
  access: DiscordAccess | undefined;
  /** The server asked in; in a direct message, channels are looked up in every server Herald is in. */
  guildId?: string;
  cache: HistoryCache;
  /** Pages of history one read may fetch. */
  maxPages: number;
  /** The message being answered. */
  questionId?: string;
}

export class DiscordWorkspace implements WorkspaceHistory {
  readonly here: { channelId: string; threadId?: string };
  readonly heraldId: string;
  readonly questionId: string | undefined;
  readonly #options: DiscordWorkspaceOptions;

  constructor(options: DiscordWorkspaceOptions) {
    this.#options = options;
    const { channelId, threadId } = options.place;
    this.here = { channelId, ...(threadId && { threadId }) };
    this.heraldId = options.client.user!.id;
    this.questionId = options.questionId;
  }

  async read(range: HistoryRange, signal: AbortSignal): Promise<HistoryRead> {
    const { client, askerId, place, access, cache } = this.#options;
    const readable = await readableChannel(client, { channelId: range.threadId ?? range.channelId, askerId, place, access });
    const cached = cache.get(range);
    if (cached) return cached;
    const read = await this.#fetch(readable.channel, readable.name, range, signal);
    cache.set(range, read);
    return read;
  }

  async channelNamed(name: string): Promise<string | undefined> {
    const { client, guildId } = this.#options;
    const id = /^<#(\d+)>$/.exec(name)?.[1] ?? (/^\d{15,22}$/.test(name) ? name : undefined);
    if (id) return id;
    const wanted = name.replace(/^#/, '').toLowerCase();
    const guilds = guildId ? [client.guilds.cache.get(guildId)] : [...client.guilds.cache.values()];
    for (const guild of guilds) {
      const found = guild?.channels.cache.find((c) => c.name.toLowerCase() === wanted && c.isTextBased());
      if (found) return found.id;
    }
    return undefined;
  }

  async #fetch(channel: TextBasedChannel, channelName: string, range: HistoryRange, signal: AbortSignal): Promise<HistoryRead> {
    const kept: Message[] = [];
    let before: string | undefined;
    let pages = 0;
    let more = true;
    while (more && kept.length < range.limit) {
      if (pages >= this.#options.maxPages) break;
      signal.throwIfAborted();
      const page = [...(await channel.messages.fetch({ limit: PAGE_SIZE, cache: false, ...(before && { before }) })).values()];
      pages += 1;
      more = page.length === PAGE_SIZE;
      for (const message of page) {
        if (!inRange(message, range)) {
          more = false;
          break;
        }
        if (kept.length < range.limit) kept.push(message);
      }
      before = page.at(-1)?.id;
    }
    const files = new SharedFileReader();
    const messages: WorkspaceMessage[] = [];
    for (const message of kept.reverse()) messages.push(await toWorkspaceMessage(message, channelName, files, signal));
    const cutShort = more && kept.length < range.limit ? pageBudgetNote(messages, 'newest-first') : undefined;
    return { messages, ...(cutShort && { cutShort }) };
  }
}

function inRange(message: Message, range: HistoryRange): boolean {
  if (range.since !== undefined && message.createdTimestamp < range.since) return false;
  if (range.fromId !== undefined && BigInt(message.id) < BigInt(range.fromId)) return false;
  return true;
}

/** What an embed says (a bot's message is often only embeds). */
function embedText(embed: Embed): string {
  return [embed.title, embed.description].filter((part) => part).join(': ');
}

async function toWorkspaceMessage(message: Message, channelName: string, files: SharedFileReader, signal: AbortSignal): Promise<WorkspaceMessage> {
  const shared = [...message.attachments.values()].map((a) => ({ request: cdnRequest(a), mime: a.contentType }));
  const fileText = shared.length > 0 ? await files.textOf(shared, signal) : '';
  const thread = message.channel.isThread() ? message.channel : undefined;
  return {
    id: message.id,
    channelId: thread?.parentId ?? message.channelId,
    channelName,
    ...(thread && { threadId: thread.id }),
    authorId: message.author.id,
    author: message.member?.displayName ?? message.author.displayName,
    isBot: message.author.bot,
    text: messageText([message.cleanContent, ...message.embeds.map(embedText), fileText]),
    sentAt: message.createdTimestamp,
    link: message.url,
  };
}
