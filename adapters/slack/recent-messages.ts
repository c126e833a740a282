import type { RecentMessage } from '../../src/tools/types.ts';
import { readSlackText } from './incoming-text.ts';
import type { SlackApi } from './slack-api.ts';
import type { UserDirectory } from './user-directory.ts';

interface HistoryMessage {
  ts?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  subtype?: string;
}

/** The latest messages of a thread (conversations.replies) or channel (conversations.history), oldest first. */
export async function readRecentMessages(
  api: SlackApi,
  users: UserDirectory,
  where: { channel: string; threadTs?: string },
  limit: number,
): Promise<RecentMessage[]> {
  const { channel, threadTs } = where;
  const messages: HistoryMessage[] = threadTs
    ? (
        (await api.call('conversations.replies', undefined, (c) => c.conversations.replies({ channel, ts: threadTs, limit: 1000 }))).messages ?? []
      ).slice(-limit)
    : ((await api.call('conversations.history', undefined, (c) => c.conversations.history({ channel, limit }))).messages ?? []).reverse();
  const shown = messages.filter((m) => m.subtype === undefined || m.subtype === 'file_share' || m.subtype === 'thread_broadcast');
  return Promise.all(
    shown.map(async (m) => {
      const { text, mentions } = readSlackText(m.text ?? '');
      const names = await Promise.all(mentions.map((x) => users.get(x.id)));
      const readable = mentions.reduce((t, x, i) => t.split(x.raw).join(`@${names[i]!.displayName}`), text);
      const author = m.user ? (await users.get(m.user)).displayName : 'a bot';
      return {
        author,
        text: readable,
        ...(m.ts && { at: new Date(Number(m.ts) * 1000).toISOString() }),
        ...(m.bot_id !== undefined && { isBot: true }),
      };
    }),
  );
}
