import type { DiscordAccess } from '../../src/config/config.ts';

/** Where a message or command comes from, for the operator's allow and deny lists. */
export interface AccessSubject {
  /** Absent in direct messages, which the lists do not restrict. */
  guildId?: string;
  /** The channel, and for a thread also its parent. */
  channelIds: string[];
  /** The roles of the member writing. */
  roleIds: string[];
}

function passes(allow: string[], deny: string[], ids: string[]): boolean {
  if (ids.some((id) => deny.includes(id))) return false;
  return allow.length === 0 || ids.some((id) => allow.includes(id));
}

/** Whether Herald may answer there: every list must pass; a deny entry wins over an allow entry. */
export function isAllowed(access: DiscordAccess | undefined, subject: AccessSubject): boolean {
  if (!access || subject.guildId === undefined) return true;
  return (
    passes(access.allowGuilds, access.denyGuilds, [subject.guildId]) &&
    passes(access.allowChannels, access.denyChannels, subject.channelIds) &&
    passes(access.allowRoles, access.denyRoles, subject.roleIds)
  );
}
