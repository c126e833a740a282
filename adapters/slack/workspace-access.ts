/**
 * Whether a Slack conversation may be read for one asker, checked before every read: Herald must be a member
 * (conversations.info), the asker too (conversations.members, unless it is where they asked), a direct message is
 * read only where it was asked, and a private channel only for an answer that stays in it or in the asker's
 * direct messages with Herald.
 */
import { WorkspaceAccessError } from '../../src/workspace/workspace-access-error.ts';
import { slackErrorCode, type SlackApi, type WebClient } from './slack-api.ts';

/** Where the answer is posted. */
export interface SlackAnswerPlace {
  channel: string;
  /** The asker's direct messages with Herald: only they read the answer. */
  isDirectMessage: boolean;
}

export interface ConversationFacts {
  id: string;
  name?: string;
  is_im?: boolean;
  is_mpim?: boolean;
  is_private?: boolean;
  is_member?: boolean;
  /** The other person of a direct message. */
  user?: string;
}

/** Members listed per conversations.members page, and pages looked at before giving up on finding the asker. */
const MEMBERS_PAGE = 1000;
const MAX_MEMBER_PAGES = 3;

function label(facts: ConversationFacts | undefined): string {
  return facts?.name ? `#${facts.name}` : 'that channel';
}

/** Whether `userId` is in the conversation (its first pages of members). */
export async function isMember(api: SlackApi, client: WebClient, channel: string, userId: string): Promise<boolean> {
  let cursor: string | undefined;
  for (let page = 0; page < MAX_MEMBER_PAGES; page += 1) {
    const response = await api.call('conversations.members', undefined, () =>
      client.conversations.members({ channel, limit: MEMBERS_PAGE, ...(cursor && { cursor }) }),
    );
    if (response.members?.includes(userId)) return true;
    cursor = response.response_metadata?.next_cursor || undefined;
    if (!cursor) return false;
  }
  return false;
}

/** The conversation's facts, once every rule above allows reading it for `askerId`'s answer at `place`. */
export async function readableConversation(
  api: SlackApi,
  client: WebClient,
  options: { channel: string; askerId: string; place: SlackAnswerPlace },
): Promise<ConversationFacts> {
  const { channel, askerId, place } = options;
  let facts: ConversationFacts | undefined;
  try {
    facts = (await api.call('conversations.info', undefined, () => client.conversations.info({ channel }))).channel as ConversationFacts | undefined;
  } catch (error) {
    const code = slackErrorCode(error);
    if (code !== 'channel_not_found' && code !== 'not_in_channel') throw error;
  }
  const inPlace = channel === place.channel;
  if (facts?.is_im && !inPlace) throw new WorkspaceAccessError('other_direct_messages', 'that conversation');
  if (!facts || (!facts.is_im && facts.is_member === false)) throw new WorkspaceAccessError('herald_cannot_read', label(facts));
  if (inPlace) return facts;
  if (!(await isMember(api, client, channel, askerId))) throw new WorkspaceAccessError('asker_cannot_read', label(facts));
  if ((facts.is_private || facts.is_mpim) && !place.isDirectMessage) throw new WorkspaceAccessError('private_in_public', label(facts));
  return facts;
}
