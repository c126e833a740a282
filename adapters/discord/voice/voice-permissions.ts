import { ChannelType, PermissionFlagsBits, type GuildMember, type VoiceBasedChannel } from 'discord.js';
import { VoiceError } from '../../../src/voice/voice-error.ts';

/** What decides whether the bot can speak in a voice channel. */
export interface VoiceChannelAccess {
  name: string;
  stage: boolean;
  /** 0: no limit. */
  userLimit: number;
  /** People (and bots) in the channel now. */
  occupants: number;
  botInChannel: boolean;
  bot: {
    view: boolean;
    connect: boolean;
    speak: boolean;
    moveMembers: boolean;
    manageChannels: boolean;
    administrator: boolean;
    timedOut: boolean;
  };
}

export function voiceChannelAccess(channel: VoiceBasedChannel, me: GuildMember): VoiceChannelAccess {
  const permissions = channel.permissionsFor(me);
  const has = (flag: bigint) => permissions.has(flag, false);
  return {
    name: channel.name,
    stage: channel.type === ChannelType.GuildStageVoice,
    userLimit: channel.userLimit,
    occupants: channel.members.size,
    botInChannel: channel.members.has(me.id),
    bot: {
      view: has(PermissionFlagsBits.ViewChannel),
      connect: has(PermissionFlagsBits.Connect),
      speak: has(PermissionFlagsBits.Speak),
      moveMembers: has(PermissionFlagsBits.MoveMembers),
      manageChannels: has(PermissionFlagsBits.ManageChannels),
      administrator: has(PermissionFlagsBits.Administrator),
      timedOut: me.isCommunicationDisabled(),
    },
  };
}

/** Why the bot cannot speak in the channel, as a message for the user; undefined when it can. */
export function voiceChannelRefusal(access: VoiceChannelAccess): VoiceError | undefined {
  const { name, bot } = access;
  if (access.stage) {
    return new VoiceError(`🔊 ${name} is a stage channel; I can only speak in ordinary voice channels.`, { code: 'unsupported_channel' });
  }
  if (bot.timedOut && !bot.administrator) {
    return new VoiceError("I'm timed out in this server, so I can't join voice channels right now.", { code: 'missing_connect' });
  }
  if (!bot.administrator && (!bot.view || !bot.connect)) {
    return new VoiceError(`I don't have permission to join 🔊 ${name}. A server admin can give me **Connect** there.`, { code: 'missing_connect' });
  }
  if (!bot.administrator && !bot.speak) {
    return new VoiceError(`I can join 🔊 ${name} but not speak there. A server admin can give me **Speak** there.`, { code: 'missing_speak' });
  }
  // Discord lets bots with Manage Channels into full channels (its API docs), members with Move Members too (its
  // help pages); administrators have both. Otherwise it ignores the join and the connection would just time out.
  const passesLimit = bot.manageChannels || bot.moveMembers || bot.administrator;
  if (access.userLimit > 0 && access.occupants >= access.userLimit && !access.botInChannel && !passesLimit) {
    return new VoiceError(`🔊 ${name} is full (${access.occupants}/${access.userLimit}), so I can't join it.`, { code: 'channel_full' });
  }
  return undefined;
}
