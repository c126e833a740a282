import { randomBytes } from 'node:crypto';
import { Permission } from './permissions.ts';
import { ChannelType, type ChannelRecord, type GuildRecord, type Json } from './records.ts';
import type { World } from './world.ts';

/** Where VOICE_SERVER_UPDATE sends a bot joining voice; token null: a fresh random one each time, as Discord does. */
export interface VoiceServerAddress {
  endpoint: string;
  token: string | null;
}

/** Why Discord would not let a member into a voice channel (for a bot's op 4 it ignores the request silently). */
export type VoiceEntryRefusal = 'no-connect' | 'full';

export function guildVoiceChannel(world: World, guild: GuildRecord, channelId: string): ChannelRecord | undefined {
  const channel = world.store.channels.get(channelId);
  return channel && channel.guildId === guild.id && channel.type === ChannelType.GuildVoice ? channel : undefined;
}

/** Members in the channel now; bots count against the user limit too. */
export function occupants(guild: GuildRecord, channelId: string): number {
  let count = 0;
  for (const state of guild.voiceStates.values()) if (state.channelId === channelId) count++;
  return count;
}

/**
 * Whether a member may enter a voice channel: it needs View Channel and Connect there, and room under the
 * user limit unless it may pass it. Discord documents Manage Channels as passing the limit for bots, and its
 * clients let Move Members in too (administrators have both).
 */
export function voiceEntryRefusal(world: World, guild: GuildRecord, channel: ChannelRecord, userId: string): VoiceEntryRefusal | null {
  const permissions = world.payloads.permissionsIn(guild, userId, channel);
  if (!(permissions & Permission.ViewChannel) || !(permissions & Permission.Connect)) return 'no-connect';
  if (channel.userLimit === 0 || guild.voiceStates.get(userId)?.channelId === channel.id) return null;
  if (permissions & (Permission.ManageChannels | Permission.MoveMembers)) return null;
  return occupants(guild, channel.id) >= channel.userLimit ? 'full' : null;
}

/** The d of VOICE_SERVER_UPDATE for the bot entering `channelId`: that channel's voice server, else the default one. */
export function voiceServerUpdate(world: World, guildId: string, channelId: string): Json {
  const { voiceServers, voiceEndpoint, voiceToken } = world.options;
  const server = voiceServers.get(channelId) ?? { endpoint: voiceEndpoint, token: voiceToken };
  return { token: server.token ?? randomBytes(8).toString('hex'), guild_id: guildId, endpoint: server.endpoint };
}
