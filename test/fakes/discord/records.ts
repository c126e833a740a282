import type { PermissionOverwrite } from './permissions.ts';

export type Json = Record<string, unknown>;

export interface UserRecord {
  id: string;
  username: string;
  globalName: string | null;
  bot: boolean;
}

export interface RoleRecord {
  id: string;
  guildId: string;
  name: string;
  permissions: bigint;
  position: number;
  color: number;
  hoist: boolean;
  mentionable: boolean;
  /** Set for the role Discord creates for a bot when it joins. */
  botId: string | null;
}

export interface MemberRecord {
  userId: string;
  nick: string | null;
  roleIds: string[];
  joinedAt: string;
}

export interface VoiceStateRecord {
  guildId: string;
  channelId: string | null;
  userId: string;
  sessionId: string;
  selfMute: boolean;
  selfDeaf: boolean;
  selfVideo: boolean;
  mute: boolean;
  deaf: boolean;
}

export const ChannelType = {
  GuildText: 0,
  DM: 1,
  GuildVoice: 2,
  GuildCategory: 4,
  PublicThread: 11,
  PrivateThread: 12,
} as const;

export interface ThreadMetadata {
  archived: boolean;
  autoArchiveDuration: number;
  archiveTimestamp: string;
  locked: boolean;
  createTimestamp: string;
}

export interface ChannelRecord {
  id: string;
  type: number;
  guildId: string | null;
  name: string | null;
  position: number;
  parentId: string | null;
  topic: string | null;
  nsfw: boolean;
  permissionOverwrites: PermissionOverwrite[];
  rateLimitPerUser: number;
  /** Voice channels: how many may be in it at once (0: no limit). */
  userLimit: number;
  lastMessageId: string | null;
  /** DM recipients (the other user); empty for guild channels. */
  recipientIds: string[];
  /** Threads only. */
  ownerId: string | null;
  thread: ThreadMetadata | null;
  messageCount: number;
  totalMessageSent: number;
  memberIds: string[];
}

export interface GuildRecord {
  id: string;
  name: string;
  ownerId: string;
  preferredLocale: string;
  roles: Map<string, RoleRecord>;
  members: Map<string, MemberRecord>;
  channelIds: string[];
  voiceStates: Map<string, VoiceStateRecord>;
  createdAt: string;
}

export interface AttachmentRecord {
  id: string;
  /** First path segment of the CDN URL: the channel id, or the application id for ephemeral attachments. */
  scope: string;
  ephemeral: boolean;
  filename: string;
  /** What Discord reports as content_type; null when it guesses none from the name. */
  contentType: string | null;
  bytes: Buffer;
  width: number | null;
  height: number | null;
  description: string | null;
  title: string | null;
  durationSecs: number | null;
  waveform: string | null;
  flags: number;
}

export interface AllowedMentions {
  parse?: string[];
  users?: string[];
  roles?: string[];
  replied_user?: boolean;
}

/** 0 DEFAULT (a reply) or 1 FORWARD. */
export interface MessageReference {
  type: number;
  messageId: string;
  channelId: string;
  guildId: string | null;
}

export interface InteractionMetadata {
  id: string;
  type: number;
  name: string;
  userId: string;
  guildId: string | null;
  /** For followups: the id of the original response. */
  originalResponseMessageId: string | null;
}

/**
 * What a forward carries of the forwarded message (Discord's message snapshot): a copy taken when it was
 * forwarded, so later edits or a deletion of the original leave it as it was.
 */
export interface SnapshotRecord {
  type: number;
  content: string;
  embeds: Json[];
  components: Json[];
  attachments: AttachmentRecord[];
  flags: number;
  createdAt: number;
  editedAt: number | null;
  mentionIds: string[];
  mentionRoleIds: string[];
}

/** A message as the fake stores it: the current state after edits. */
export interface MessageRecord {
  id: string;
  channelId: string;
  guildId: string | null;
  authorId: string;
  type: number;
  content: string;
  embeds: Json[];
  components: Json[];
  attachments: AttachmentRecord[];
  flags: number;
  tts: boolean;
  nonce: string | number | null;
  createdAt: number;
  editedAt: number | null;
  mentionIds: string[];
  mentionRoleIds: string[];
  mentionEveryone: boolean;
  /** The allowed_mentions of the request that last set the content (null when the request had none). */
  allowedMentions: AllowedMentions | null;
  reference: MessageReference | null;
  /** A forward's copy of the forwarded message; empty for every other message. */
  snapshots: SnapshotRecord[];
  webhookId: string | null;
  applicationId: string | null;
  interaction: InteractionMetadata | null;
  /** Only visible to the interaction's user; never stored in the channel history. */
  ephemeral: boolean;
  threadId: string | null;
  poll: Json | null;
  deleted: boolean;
}

/** A plain message (type 0, nothing but its content) with `fields` set over it. */
export function messageRecord(
  fields: Pick<MessageRecord, 'id' | 'channelId' | 'guildId' | 'authorId' | 'createdAt'> & Partial<MessageRecord>,
): MessageRecord {
  return {
    type: 0,
    content: '',
    embeds: [],
    components: [],
    attachments: [],
    flags: 0,
    tts: false,
    nonce: null,
    editedAt: null,
    mentionIds: [],
    mentionRoleIds: [],
    mentionEveryone: false,
    allowedMentions: null,
    reference: null,
    snapshots: [],
    webhookId: null,
    applicationId: null,
    interaction: null,
    ephemeral: false,
    threadId: null,
    poll: null,
    deleted: false,
    ...fields,
  };
}

export interface CommandRecord {
  id: string;
  applicationId: string;
  guildId: string | null;
  version: string;
  type: number;
  name: string;
  nameLocalizations: Json | null;
  description: string;
  descriptionLocalizations: Json | null;
  options: Json[];
  defaultMemberPermissions: string | null;
  nsfw: boolean;
  contexts: number[] | null;
  integrationTypes: number[];
}

export interface InteractionCallbackRecord {
  type: number;
  data: Json | null;
  files: { filename: string; contentType: string; size: number }[];
  status: number;
  at: number;
}

export interface InteractionRecord {
  id: string;
  token: string;
  /** 2 APPLICATION_COMMAND, 3 MESSAGE_COMPONENT */
  type: number;
  commandName: string | null;
  customId: string | null;
  guildId: string | null;
  channelId: string;
  userId: string;
  /** The INTERACTION_CREATE payload as dispatched. */
  payload: Json;
  createdAt: number;
  /** Every call to the callback endpoint, including rejected ones. */
  callbacks: InteractionCallbackRecord[];
  /** Type of the accepted initial response, null until acknowledged. */
  responseType: number | null;
  respondedAt: number | null;
  originalMessageId: string | null;
  /** The message a component interaction came from. */
  sourceMessageId: string | null;
  followupIds: string[];
  deferredEphemeral: boolean;
}
