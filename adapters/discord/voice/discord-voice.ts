import { Events, type Client, type Guild, type Message, type VoiceBasedChannel, type VoiceState } from 'discord.js';
import type { Core } from '../../../src/core.ts';
import type { ChatMessageForNarration } from '../../../src/voice/narration.ts';
import type { VoiceControl } from '../../../src/voice/voice-control.ts';
import { coreVoiceOptions, VoiceManager, type VoiceManagerOptions } from '../../../src/voice/voice-manager.ts';
import { DiscordVoicePlatform, type VoiceLinkTimings } from './discord-voice-platform.ts';

export interface DiscordVoiceOptions extends Pick<VoiceManagerOptions, 'idleTimeoutMs' | 'maxQueued' | 'maxNarrationBacklog'> {
  link?: VoiceLinkTimings;
  /** How long the bot stays in a voice channel with no people in it before it stops and leaves. Default 30 s. */
  emptyChannelGraceMs?: number;
}

const EMPTY_CHANNEL_GRACE_MS = 30_000;

export interface DiscordVoice {
  manager: VoiceManager;
  /** Voice controls for a command used in a server channel; undefined in DMs. */
  controlFor(origin: { guildId: string | null; channelId: string; userId: string }): VoiceControl | undefined;
  /** Leaves every voice channel and stops listening for messages to narrate. */
  close(): void;
}

/**
 * Voice for a discord.js client: live /say in voice channels, /stop, /skip and /narrate. It listens to
 * the client itself: messageCreate feeds narration, and when the bot's voice channel has had no people in it
 * for a grace period (the last one left, or a moderator moved the bot into an empty channel) the bot stops
 * and leaves; someone dropping out and straight back in keeps it. The client needs the GuildVoiceStates
 * intent (and GuildMessages + MessageContent for narration).
 */
export function createDiscordVoice(
  client: Client,
  core: Pick<Core, 'capabilities' | 'store' | 'logger' | 'engine'>,
  options: DiscordVoiceOptions = {},
): DiscordVoice {
  const logger = core.logger.child({ component: 'discord-voice' });
  const manager = new VoiceManager({
    ...coreVoiceOptions('discord', core, logger),
    voice: new DiscordVoicePlatform(client, logger, options.link),
    idleTimeoutMs: options.idleTimeoutMs,
    maxQueued: options.maxQueued,
    maxNarrationBacklog: options.maxNarrationBacklog,
  });
  const onMessage = (message: Message) => {
    if (message.inGuild()) manager.narrate(narratedMessage(message));
  };
  const graceMs = options.emptyChannelGraceMs ?? EMPTY_CHANNEL_GRACE_MS;
  const emptyTimers = new Map<string, NodeJS.Timeout>();
  const botChannel = (guild: Guild) => guild.members.me?.voice.channel ?? null;
  const hasPeople = (channel: VoiceBasedChannel) => channel.members.some((member) => !member.user.bot);
  const onVoiceState = (before: VoiceState, after: VoiceState) => {
    const { guild } = after;
    if (before.channelId !== after.channelId) manager.voiceChannelChanged(guild.id, after.id, after.channelId);
    const channel = botChannel(guild);
    if (!channel || hasPeople(channel)) {
      clearTimeout(emptyTimers.get(guild.id));
      emptyTimers.delete(guild.id);
      return;
    }
    if (emptyTimers.has(guild.id)) return;
    const timer = setTimeout(() => {
      emptyTimers.delete(guild.id);
      const still = botChannel(guild);
      if (still && !hasPeople(still)) manager.channelEmptied(guild.id, still.id);
    }, graceMs);
    timer.unref();
    emptyTimers.set(guild.id, timer);
  };
  client.on(Events.MessageCreate, onMessage);
  client.on(Events.VoiceStateUpdate, onVoiceState);
  return {
    manager,
    controlFor: ({ guildId, channelId, userId }) => (guildId === null ? undefined : manager.control({ guildId, channelId, userId })),
    close() {
      client.off(Events.MessageCreate, onMessage);
      client.off(Events.VoiceStateUpdate, onVoiceState);
      for (const timer of emptyTimers.values()) clearTimeout(timer);
      emptyTimers.clear();
      manager.close();
    },
  };
}

export function narratedMessage(message: Message<true>): ChatMessageForNarration {
  return {
    guildId: message.guildId,
    channelId: message.channelId,
    authorId: message.author.id,
    authorName: message.member?.displayName ?? message.author.displayName,
    text: message.cleanContent,
    attachments: [...message.attachments.values()].map((attachment) => ({
      name: attachment.name,
      ...(attachment.contentType !== null && { contentType: attachment.contentType }),
    })),
    stickers: message.stickers.size,
    fromBot: message.author.bot || message.webhookId !== null,
    fromCommand: message.system || message.interactionMetadata !== null,
  };
}
