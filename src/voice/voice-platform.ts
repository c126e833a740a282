import type { Citation } from '../service/types.ts';
import type { VoiceLink } from './voice-link.ts';

export interface ChannelRef {
  id: string;
  name: string;
}

/** What the voice manager needs from a chat platform. Methods throw VoiceError with a user-fit message. */
export interface VoicePlatform {
  /** The voice channel the user is in, once checked that the bot may join and speak there. */
  userVoiceChannel(guildId: string, userId: string): Promise<ChannelRef>;
  /**
   * A text channel of the guild named by mention, id or name (`fallbackId` when no reference is given),
   * once checked that both the user and the bot can read it.
   */
  textChannel(guildId: string, userId: string, reference: string | undefined, fallbackId: string): Promise<ChannelRef>;
  channelName(guildId: string, channelId: string): string;
  /** Whether the user may stop or skip what plays in a voice channel: they are in it, or may move members there. */
  mayControl(guildId: string, userId: string, voiceChannelId: string): Promise<boolean>;
  join(guildId: string, channelId: string): Promise<VoiceLink>;
  /** People (not bots) in a voice channel now. */
  peopleIn(guildId: string, channelId: string): number;
  /** How the guild shows a member's name. */
  displayName(guildId: string, userId: string): string;
  /** Posts in a voice channel's text chat, the sources listed under the text; nobody is pinged. */
  postInVoiceChat(guildId: string, channelId: string, text: string, citations?: readonly Citation[]): Promise<void>;
}
