/** Discord permission bits (https://discord.com/developers/docs/topics/permissions). */
export const Permission = {
  CreateInstantInvite: 1n << 0n,
  KickMembers: 1n << 1n,
  BanMembers: 1n << 2n,
  Administrator: 1n << 3n,
  ManageChannels: 1n << 4n,
  ManageGuild: 1n << 5n,
  AddReactions: 1n << 6n,
  ViewAuditLog: 1n << 7n,
  PrioritySpeaker: 1n << 8n,
  Stream: 1n << 9n,
  ViewChannel: 1n << 10n,
  SendMessages: 1n << 11n,
  SendTTSMessages: 1n << 12n,
  ManageMessages: 1n << 13n,
  EmbedLinks: 1n << 14n,
  AttachFiles: 1n << 15n,
  ReadMessageHistory: 1n << 16n,
  MentionEveryone: 1n << 17n,
  UseExternalEmojis: 1n << 18n,
  Connect: 1n << 20n,
  Speak: 1n << 21n,
  MuteMembers: 1n << 22n,
  DeafenMembers: 1n << 23n,
  MoveMembers: 1n << 24n,
  UseVAD: 1n << 25n,
  ChangeNickname: 1n << 26n,
  ManageRoles: 1n << 28n,
  UseApplicationCommands: 1n << 31n,
  ManageThreads: 1n << 34n,
  CreatePublicThreads: 1n << 35n,
  CreatePrivateThreads: 1n << 36n,
  SendMessagesInThreads: 1n << 38n,
  SendVoiceMessages: 1n << 46n,
  SendPolls: 1n << 49n,
  UseExternalApps: 1n << 50n,
} as const;

export const ALL_PERMISSIONS = (1n << 52n) - 1n;

/** What a fresh guild grants @everyone. */
export const DEFAULT_EVERYONE_PERMISSIONS =
  Permission.CreateInstantInvite |
  Permission.AddReactions |
  Permission.Stream |
  Permission.ViewChannel |
  Permission.SendMessages |
  Permission.EmbedLinks |
  Permission.AttachFiles |
  Permission.ReadMessageHistory |
  Permission.UseExternalEmojis |
  Permission.Connect |
  Permission.Speak |
  Permission.UseVAD |
  Permission.ChangeNickname |
  Permission.UseApplicationCommands |
  Permission.CreatePublicThreads |
  Permission.CreatePrivateThreads |
  Permission.SendMessagesInThreads |
  Permission.SendVoiceMessages |
  Permission.SendPolls |
  Permission.UseExternalApps;

export interface PermissionOverwrite {
  id: string;
  /** 0 = role, 1 = member */
  type: 0 | 1;
  allow: string;
  deny: string;
}

export interface PermissionSubject {
  guildId: string;
  ownerId: string;
  userId: string;
  memberRoleIds: readonly string[];
  rolePermissions: ReadonlyMap<string, bigint>;
}

/** Discord's algorithm: base permissions from @everyone and roles, then @everyone, role and member overwrites. */
export function computePermissions(subject: PermissionSubject, overwrites: readonly PermissionOverwrite[] | null): bigint {
  if (subject.userId === subject.ownerId) return ALL_PERMISSIONS;
  let base = subject.rolePermissions.get(subject.guildId) ?? 0n;
  for (const roleId of subject.memberRoleIds) base |= subject.rolePermissions.get(roleId) ?? 0n;
  if (base & Permission.Administrator) return ALL_PERMISSIONS;
  if (!overwrites) return base;

  let permissions = base;
  const everyone = overwrites.find((o) => o.id === subject.guildId);
  if (everyone) permissions = (permissions & ~BigInt(everyone.deny)) | BigInt(everyone.allow);
  let allow = 0n;
  let deny = 0n;
  for (const overwrite of overwrites) {
    if (overwrite.type === 0 && subject.memberRoleIds.includes(overwrite.id)) {
      allow |= BigInt(overwrite.allow);
      deny |= BigInt(overwrite.deny);
    }
  }
  permissions = (permissions & ~deny) | allow;
  const member = overwrites.find((o) => o.type === 1 && o.id === subject.userId);
  if (member) permissions = (permissions & ~BigInt(member.deny)) | BigInt(member.allow);
  if (!(permissions & Permission.ViewChannel)) return 0n;
  return permissions;
}
