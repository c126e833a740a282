/**
 * What the workspace features (search, summaries) read: a channel's or thread's messages, fetched on demand through
 * the platform's history API by the adapter, for one asker in one place.
 */

/** A message of a channel or thread, as the workspace features read and cite it. */
export interface WorkspaceMessage {
  /** The platform's id of the message (Discord snowflake, Slack ts). */
  id: string;
  channelId: string;
  /** The channel's name as people know it, without `#` (`launch`); a DM's is the other person's name. */
  channelName: string;
  /** Set when the message is in a thread: the thread's id (Discord thread channel, Slack parent ts). */
  threadId?: string;
  authorId: string;
  author: string;
  isBot: boolean;
  /** The text as people read it (mentions resolved), followed by the text of readable files shared with it. */
  text: string;
  /** When it was sent, ms since the epoch. */
  sentAt: number;
  /** A link that opens the message on the platform (Discord jump link, Slack permalink). */
  link: string;
}

/** Which messages to read: a channel or one thread, newest first up to `limit`, bounded by `since` or `fromId`. */
export interface HistoryRange {
  channelId: string;
  threadId?: string;
  /** Only messages sent at or after this time (ms since the epoch). */
  since?: number;
  /** Only this message and those after it ("Summarize from here"). */
  fromId?: string;
  /** At most this many messages (the newest of the range). */
  limit: number;
}

export interface HistoryRead {
  /** Oldest first; deleted messages never appear. */
  messages: WorkspaceMessage[];
  /**
   * Set when the range held more than Herald could read (its API-call budget, or Slack's rate tier for
   * distributed apps): says plainly how far back it got, for the answer to tell the asker.
   */
  cutShort?: string;
}

/** The history an adapter offers for one question or command: only channels both the asker and Herald can read. */
export interface WorkspaceHistory {
  /** Where the question was asked (the default range of every read). */
  readonly here: { channelId: string; threadId?: string };
  /** Herald's own id on the platform: its messages are answers, not sources. */
  readonly heraldId?: string;
  /** The message being answered, when there is one: no source of its own answer. */
  readonly questionId?: string;
  /** Throws a HeraldError fit to show the asker when the asker or Herald may not read the channel. */
  read(range: HistoryRange, signal: AbortSignal): Promise<HistoryRead>;
  /**
   * The id of the channel people call `name` (`launch`, `#launch`, or the platform's own id or mention), where the
   * asker is; undefined when there is none. Reading it is still up to `read`'s checks.
   */
  channelNamed?(name: string, signal: AbortSignal): Promise<string | undefined>;
}
