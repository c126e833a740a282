import type { SlackFile } from './incoming-files.ts';

/** The fields Herald reads from a Slack `message` or `app_mention` event. */
export interface SlackMessageEvent {
  type: string;
  subtype?: string;
  channel: string;
  /** `im`, `mpim`, `group` or `channel` (absent on app_mention). */
  channel_type?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  team?: string;
  files?: SlackFile[];
}

// A person's new message, with files, or also sent to the channel; edits, joins and the like are not questions.
const QUESTION_SUBTYPES = new Set([undefined, 'file_share', 'thread_broadcast']);

/** A new message a person wrote (not a bot, not Herald itself, not an edit or a system notice). */
export function isFromPerson(event: Pick<SlackMessageEvent, 'subtype' | 'bot_id' | 'user'>, botUserId: string | undefined): boolean {
  if (!QUESTION_SUBTYPES.has(event.subtype)) return false;
  if (event.bot_id !== undefined || event.user === undefined) return false;
  return event.user !== botUserId;
}

/** Whether `text` holds `<@USER>` or `<@USER|label>`; one scan, whatever the text. */
export function mentionsUser(text: string | undefined, userId: string | undefined): boolean {
  if (userId === undefined || userId === '' || text === undefined) return false;
  const opener = `<@${userId}`;
  for (let at = text.indexOf(opener); at !== -1; at = text.indexOf(opener, at + opener.length)) {
    const next = text[at + opener.length];
    if (next === '>') return true;
    // A label runs to the first `>`: one anywhere after closes this mention (and there is none for a later one).
    if (next === '|') return text.includes('>', at + opener.length);
  }
  return false;
}

// A user's mention (its id) or a broadcast to many: @here, @channel, @everyone, a user group. Prefixes only, so one scan.
const ADDRESSEE = /<@([UW][A-Z0-9]*)|<!(?:here|channel|everyone|subteam\^)/g;

/** Whether `text` is addressed to someone other than `userId`: another person's mention, a user group, @here and the like. */
export function mentionsOthers(text: string | undefined, userId: string | undefined): boolean {
  if (text === undefined) return false;
  for (const [, mentioned] of text.matchAll(ADDRESSEE)) if (mentioned !== userId) return true;
  return false;
}

/** A `message_changed` event: the message as it is now and as it was. */
export interface SlackMessageChangedEvent {
  subtype?: string;
  channel?: string;
  channel_type?: string;
  message?: Omit<SlackMessageEvent, 'channel'> & { edited?: { user?: string; ts?: string } };
  previous_message?: { text?: string };
}

/** A person's edit of a message: the message as it now reads, and when it was edited (its ts). */
export interface SlackEdit {
  message: SlackMessageEvent;
  editedTs: string;
}

/**
 * The edit a `message_changed` event tells of, when a person changed the text of their message; other changes — a
 * link unfurled, a deletion's tombstone, a bot's update — are none.
 */
export function editOf(event: SlackMessageChangedEvent, botUserId: string | undefined): SlackEdit | undefined {
  const now = event.message;
  if (event.subtype !== 'message_changed' || !now || event.channel === undefined) return undefined;
  const editedTs = now.edited?.ts;
  if (editedTs === undefined || !isFromPerson(now, botUserId) || now.text === event.previous_message?.text) return undefined;
  return {
    message: { ...now, type: 'message', channel: event.channel, ...(event.channel_type !== undefined && { channel_type: event.channel_type }) },
    editedTs,
  };
}
