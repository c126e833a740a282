/**
 * Whether a Discord channel may be read for one asker, checked before every read: both the asker and Herald need
 * View Channel and Read Message History there (permission overwrites included, as discord.js computes them), the
 * operator's lists must allow it, and a channel that not everyone in the server can see is read only for an answer
 * that stays in it (or in the asker's direct messages with Herald). A direct message is read only where it was asked.
 */
import {
  ChannelType,
  PermissionFlagsBits,
  type Channel,
  type Client,
  type GuildBasedChannel,
  type GuildMember,
  type TextBasedChannel,
} from 'discord.js';
import type { DiscordAccess } from '../../src/config/config.ts';
import { WorkspaceAccessError } from '../../src/workspace/workspace-access-error.ts';
import { isAllowed } from './access-policy.ts';

const READ = PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ReadMessageHistory;

/** Where the answer is posted: a server channel (its thread, if any) or a direct message. */
export interface AnswerPlace {
  channelId: string;
  threadId?: string;
  isDirectMessage: boolean;
}

export interface ReadableChannel {
  channel: TextBasedChannel;
  /** The name people know it by, without `#`. */
  name: string;
  /** For a thread: its parent channel's id. */
  parentId?: string;
}

function label(channel: Channel | null): string {
  return channel && 'name' in channel && channel.name ? `#${channel.name}` : 'that channel';
}

async function memberOf(channel: GuildBasedChannel, userId: string): Promise<GuildMember | undefined> {
  return channel.guild.members.fetch(userId).catch(() => undefined);
}

function canRead(channel: GuildBasedChannel, member: GuildMember | undefined): boolean {
  return member !== undefined && (channel.permissionsFor(member)?.has(READ) ?? false);
}

function isPublic(channel: GuildBasedChannel): boolean {
  if (channel.type === ChannelType.PrivateThread) return false;
  return channel.permissionsFor(channel.guild.roles.everyone)?.has(PermissionFlagsBits.ViewChannel) ?? false;
}

/** The channel `channelId` names, once every rule above allows this asker to read it for an answer posted at `place`. */
export async function readableChannel(
  client: Client,
  options: { channelId: string; askerId: string; place: AnswerPlace; access: DiscordAccess | undefined },
): Promise<ReadableChannel> {
  const { channelId, askerId, place, access } = options;
  const channel = await client.channels.fetch(channelId).catch(() => null);
  if (!channel?.isTextBased()) throw new WorkspaceAccessError('herald_cannot_read', label(channel));
  const inPlace = channelId === place.channelId || channelId === place.threadId;
  if (channel.isDMBased()) {
    if (!inPlace) throw new WorkspaceAccessError('other_direct_messages', label(channel));
    return { channel, name: channel.type === ChannelType.DM ? (channel.recipient?.displayName ?? 'direct message') : 'group message' };
  }
  const asker = await memberOf(channel, askerId);
  if (!canRead(channel, asker)) throw new WorkspaceAccessError('asker_cannot_read', label(channel));
  if (!canRead(channel, channel.guild.members.me ?? (await memberOf(channel, client.user!.id)))) {
    throw new WorkspaceAccessError('herald_cannot_read', label(channel));
  }
  const parentId = channel.isThread() ? (channel.parentId ?? undefined) : undefined;
  const channelIds = parentId ? [channel.id, parentId] : [channel.id];
  if (!isAllowed(access, { guildId: channel.guildId, channelIds, roleIds: [...asker!.roles.cache.keys()] })) {
    throw new WorkspaceAccessError('operator_denied', label(channel));
  }
  const privateThread = channel.type === ChannelType.PrivateThread;
  if (privateThread && !inPlace && !(await channel.members.fetch({ member: askerId }).catch(() => undefined))) {
    throw new WorkspaceAccessError('asker_cannot_read', label(channel));
  }
  const staysInside = inPlace || (parentId === place.channelId && !privateThread) || place.isDirectMessage;
  if (!staysInside && !isPublic(channel)) throw new WorkspaceAccessError('private_in_public', label(channel));
  const name = channel.isThread() ? (channel.parent?.name ?? channel.name) : channel.name;
  return { channel, name, ...(parentId && { parentId }) };
}
