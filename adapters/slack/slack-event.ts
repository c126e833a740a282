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

export function mentionsUser(text: string | undefined, userId: string | undefined): boolean {
  return userId !== undefined && text !== undefined && new RegExp(`<@${userId}(?:\\|[^>]*)?>`).test(text);
}
