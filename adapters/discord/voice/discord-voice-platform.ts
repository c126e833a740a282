import { PermissionFlagsBits, type Client, type Guild, type GuildBasedChannel } from 'discord.js';
import { loadPackage } from '../../../src/load-package.ts';
import type { Citation } from '../../../src/service/types.ts';
import { splitMarkdown } from '../../../src/streaming/markdown-split.ts';
import type { Logger } from '../../../src/log/logger.ts';
import { VoiceError } from '../../../src/voice/voice-error.ts';
import type { ChannelRef, VoicePlatform } from '../../../src/voice/voice-platform.ts';
import type { DiscordVoiceLink, DiscordVoiceLinkOptions } from './discord-voice-link.ts';
import { MESSAGE_LIMIT } from '../discord-surface.ts';
import { NO_MENTIONS } from '../mentions.ts';
import { sourcesEmbed } from '../sources-embed.ts';
import { voiceChannelAccess, voiceChannelRefusal } from './voice-permissions.ts';

export type VoiceLinkTimings = Omit<DiscordVoiceLinkOptions, 'guildId' | 'channelId' | 'adapterCreator' | 'logger' | 'isBot'>;

/** Voice channels, text channels and connections of the guilds a discord.js client is in. */
export class DiscordVoicePlatform implements VoicePlatform {
  readonly #client: Client;
  readonly #logger: Logger;
  readonly #timings: VoiceLinkTimings;

  constructor(client: Client, logger: Logger, timings: VoiceLinkTimings = {}) {
    this.#client = client;
    this.#logger = logger;
    this.#timings = timings;
  }

  async userVoiceChannel(guildId: string, userId: string): Promise<ChannelRef> {
    const guild = this.#guild(guildId);
    const state = guild.voiceStates.cache.get(userId) ?? (await guild.voiceStates.fetch(userId).catch(() => undefined));
    const channel = state?.channel;
    if (!channel) throw new VoiceError('Join a voice channel first, then ask again.', { code: 'not_in_voice' });
    const me = guild.members.me ?? (await guild.members.fetchMe());
    const refusal = voiceChannelRefusal(voiceChannelAccess(channel, me));
    if (refusal) throw refusal;
    return { id: channel.id, name: channel.name };
  }

  async textChannel(guildId: string, userId: string, reference: string | undefined, fallbackId: string): Promise<ChannelRef> {
    const guild = this.#guild(guildId);
    const channel = reference === undefined ? guild.channels.cache.get(fallbackId) : findChannel(guild, reference);
    if (!channel?.isTextBased()) {
      throw new VoiceError(`I can't find a text channel called ${reference ?? 'that'} here.`, { code: 'unknown_channel' });
    }
    const me = guild.members.me ?? (await guild.members.fetchMe());
    if (!channel.permissionsFor(userId)?.has(PermissionFlagsBits.ViewChannel)) {
      throw new VoiceError("You can't read that channel, so I won't read it aloud.", { code: 'unknown_channel' });
    }
    if (!channel.permissionsFor(me).has(PermissionFlagsBits.ViewChannel)) {
      throw new VoiceError(`I can't see #${channel.name}. A server admin can give me **View Channel** there.`, { code: 'unknown_channel' });
    }
    return { id: channel.id, name: channel.name };
  }

  channelName(guildId: string, channelId: string): string {
    return this.#client.guilds.cache.get(guildId)?.channels.cache.get(channelId)?.name ?? 'another channel';
  }

  async mayControl(guildId: string, userId: string, voiceChannelId: string): Promise<boolean> {
    const guild = this.#guild(guildId);
    const state = guild.voiceStates.cache.get(userId) ?? (await guild.voiceStates.fetch(userId).catch(() => undefined));
    if (state?.channelId === voiceChannelId) return true;
    const channel = guild.channels.cache.get(voiceChannelId);
    const member = await guild.members.fetch(userId).catch(() => undefined);
    return (member && channel?.permissionsFor(member).has(PermissionFlagsBits.MoveMembers)) ?? false;
  }

  async join(guildId: string, channelId: string): Promise<DiscordVoiceLink> {
    const guild = this.#guild(guildId);
    // @discordjs/voice loads with the first join, not with every Discord bot.
    const { DiscordVoiceLink: Link } = await loadPackage('@discordjs/voice', () => import('./discord-voice-link.ts'));
    return Link.join({
      ...this.#timings,
      guildId,
      channelId,
      adapterCreator: guild.voiceAdapterCreator,
      logger: this.#logger.child({ guildId }),
      isBot: (userId) => this.#isBot(userId),
    });
  }

  peopleIn(guildId: string, channelId: string): number {
    const channel = this.#client.guilds.cache.get(guildId)?.channels.cache.get(channelId);
    return channel?.isVoiceBased() ? channel.members.filter((member) => !member.user.bot).size : 0;
  }

  displayName(guildId: string, userId: string): string {
    const guild = this.#client.guilds.cache.get(guildId);
    return guild?.members.cache.get(userId)?.displayName ?? this.#client.users.cache.get(userId)?.displayName ?? 'someone';
  }

  async postInVoiceChat(guildId: string, channelId: string, text: string, citations: readonly Citation[] = []): Promise<void> {
    const channel = this.#guild(guildId).channels.cache.get(channelId);
    if (!channel?.isVoiceBased()) return;
    const parts = splitMarkdown(text, MESSAGE_LIMIT);
    for (const [index, content] of parts.entries()) {
      const last = index === parts.length - 1;
      await channel.send({ content, allowedMentions: NO_MENTIONS, ...(last && citations.length > 0 && { embeds: [sourcesEmbed(citations)] }) });
    }
  }

  /** From the cache when the user is known (voice states bring their users), else asked of Discord. */
  #isBot(userId: string): boolean | Promise<boolean> {
    const cached = this.#client.users.cache.get(userId);
    return cached ? cached.bot : this.#client.users.fetch(userId).then((user) => user.bot);
  }

  #guild(guildId: string): Guild {
    const guild = this.#client.guilds.cache.get(guildId);
    if (!guild) throw new VoiceError("I'm not in that server.", { code: 'not_in_guild' });
    return guild;
  }
}

/** A channel by mention (<#id>), id, or name with or without the leading #. */
function findChannel(guild: Guild, reference: string): GuildBasedChannel | undefined {
  const trimmed = reference.trim();
  const id = /^<#(\d+)>$/.exec(trimmed)?.[1] ?? (/^\d{15,}$/.test(trimmed) ? trimmed : undefined);
  if (id !== undefined) return guild.channels.cache.get(id);
  const name = trimmed.replace(/^#/, '').toLowerCase();
  return guild.channels.cache.find((channel) => channel.isTextBased() && channel.name.toLowerCase() === name);
}
