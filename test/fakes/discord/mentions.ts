import type { AllowedMentions, GuildRecord } from './records.ts';
import type { Store } from './store.ts';

export interface MentionInput {
  content: string;
  guild: GuildRecord | null;
  /** The request's allowed_mentions; null means Discord's default: parse everything. */
  allowed: AllowedMentions | null;
  /** Author of the message being replied to, if any. */
  repliedAuthorId: string | null;
  canMentionEveryone: boolean;
}

export interface Mentions {
  userIds: string[];
  roleIds: string[];
  everyone: boolean;
}

/** Which users, roles and @everyone a message pings, as Discord derives them from content and allowed_mentions. */
export function resolveMentions(store: Store, input: MentionInput): Mentions {
  const { allowed } = input;
  const parse = allowed ? (allowed.parse ?? []) : ['users', 'roles', 'everyone'];
  const userIds: string[] = [];
  for (const match of input.content.matchAll(/<@!?(\d{17,20})>/g)) {
    const id = match[1] as string;
    const permitted = parse.includes('users') || (allowed?.users ?? []).includes(id);
    if (permitted && store.users.has(id) && !userIds.includes(id)) userIds.push(id);
  }
  const roleIds: string[] = [];
  for (const match of input.content.matchAll(/<@&(\d{17,20})>/g)) {
    const id = match[1] as string;
    const permitted = parse.includes('roles') || (allowed?.roles ?? []).includes(id);
    if (permitted && input.guild?.roles.has(id) && !roleIds.includes(id)) roleIds.push(id);
  }
  const everyone = parse.includes('everyone') && input.canMentionEveryone && /@(everyone|here)\b/.test(input.content);
  const pingReplied = allowed ? allowed.replied_user === true : true;
  if (input.repliedAuthorId && pingReplied && !userIds.includes(input.repliedAuthorId)) userIds.push(input.repliedAuthorId);
  return { userIds, roleIds, everyone };
}
