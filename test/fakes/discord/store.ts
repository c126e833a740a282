import { discordTimestamp, snowflake } from './snowflake.ts';
import { DiscordErrors } from './errors.ts';
import type { PermissionOverwrite } from './permissions.ts';
import {
  ChannelType,
  type AttachmentRecord,
  type ChannelRecord,
  type CommandRecord,
  type GuildRecord,
  type InteractionRecord,
  type MemberRecord,
  type MessageRecord,
  messageRecord,
  type RoleRecord,
  type UserRecord,
} from './records.ts';

export interface NewChannel {
  guildId: string | null;
  type: number;
  name?: string | null;
  parentId?: string | null;
  topic?: string | null;
  permissionOverwrites?: PermissionOverwrite[];
  recipientIds?: string[];
  ownerId?: string | null;
  userLimit?: number;
  id?: string;
}

export interface SeedMessage {
  authorId: string;
  content: string;
  /** When it was sent (ms since the epoch): its snowflake is made from it. */
  at: number;
}

/** All of the fake's world, without any protocol concerns. */
export class Store {
  readonly users = new Map<string, UserRecord>();
  readonly guilds = new Map<string, GuildRecord>();
  readonly channels = new Map<string, ChannelRecord>();
  readonly messages = new Map<string, MessageRecord>();
  /** Channel id → ids of its (non-ephemeral) messages, oldest first; deleted ones are removed. */
  readonly channelHistory = new Map<string, string[]>();
  readonly attachments = new Map<string, AttachmentRecord>();
  readonly commands = new Map<string, CommandRecord>();
  readonly interactions = new Map<string, InteractionRecord>();
  readonly interactionsByToken = new Map<string, InteractionRecord>();

  addUser(input: { username: string; globalName?: string | null; bot?: boolean; id?: string }): UserRecord {
    const user: UserRecord = {
      id: input.id ?? snowflake(),
      username: input.username,
      globalName: input.globalName === undefined ? input.username : input.globalName,
      bot: input.bot ?? false,
    };
    this.users.set(user.id, user);
    return user;
  }

  addGuild(input: { name: string; ownerId: string; everyonePermissions: bigint; id?: string }): GuildRecord {
    const id = input.id ?? snowflake();
    const guild: GuildRecord = {
      id,
      name: input.name,
      ownerId: input.ownerId,
      preferredLocale: 'en-US',
      roles: new Map(),
      members: new Map(),
      channelIds: [],
      voiceStates: new Map(),
      createdAt: discordTimestamp(),
    };
    guild.roles.set(id, {
      id,
      guildId: id,
      name: '@everyone',
      permissions: input.everyonePermissions,
      position: 0,
      color: 0,
      hoist: false,
      mentionable: false,
      botId: null,
    });
    this.guilds.set(id, guild);
    return guild;
  }

  addRole(guildId: string, input: { name: string; permissions: bigint; mentionable?: boolean; botId?: string | null }): RoleRecord {
    const guild = this.guild(guildId);
    const role: RoleRecord = {
      id: snowflake(),
      guildId,
      name: input.name,
      permissions: input.permissions,
      position: guild.roles.size,
      color: 0,
      hoist: false,
      mentionable: input.mentionable ?? false,
      botId: input.botId ?? null,
    };
    guild.roles.set(role.id, role);
    return role;
  }

  addMember(guildId: string, userId: string, roleIds: string[] = [], nick: string | null = null): MemberRecord {
    this.user(userId);
    const member: MemberRecord = { userId, nick, roleIds, joinedAt: discordTimestamp() };
    this.guild(guildId).members.set(userId, member);
    return member;
  }

  addChannel(input: NewChannel): ChannelRecord {
    const channel: ChannelRecord = {
      id: input.id ?? snowflake(),
      type: input.type,
      guildId: input.guildId,
      name: input.name ?? null,
      position: 0,
      parentId: input.parentId ?? null,
      topic: input.topic ?? null,
      nsfw: false,
      permissionOverwrites: input.permissionOverwrites ?? [],
      rateLimitPerUser: 0,
      userLimit: input.userLimit ?? 0,
      lastMessageId: null,
      recipientIds: input.recipientIds ?? [],
      ownerId: input.ownerId ?? null,
      thread: null,
      messageCount: 0,
      totalMessageSent: 0,
      memberIds: [],
    };
    if (input.guildId) {
      const guild = this.guild(input.guildId);
      channel.position = guild.channelIds.filter((id) => this.channels.get(id)?.type === input.type).length;
      guild.channelIds.push(channel.id);
    }
    this.channels.set(channel.id, channel);
    this.channelHistory.set(channel.id, []);
    return channel;
  }

  /** The DM channel between the bot and a user, created on first use like POST /users/@me/channels. */
  dmChannelWith(userId: string): ChannelRecord {
    for (const channel of this.channels.values()) {
      if (channel.type === ChannelType.DM && channel.recipientIds[0] === userId) return channel;
    }
    return this.addChannel({ guildId: null, type: ChannelType.DM, recipientIds: [userId] });
  }

  user(id: string): UserRecord {
    const user = this.users.get(id);
    if (!user) throw DiscordErrors.unknownUser();
    return user;
  }

  guild(id: string): GuildRecord {
    const guild = this.guilds.get(id);
    if (!guild) throw DiscordErrors.unknownGuild();
    return guild;
  }

  channel(id: string): ChannelRecord {
    const channel = this.channels.get(id);
    if (!channel) throw DiscordErrors.unknownChannel();
    return channel;
  }

  member(guildId: string, userId: string): MemberRecord {
    const member = this.guild(guildId).members.get(userId);
    if (!member) throw DiscordErrors.unknownMember();
    return member;
  }

  /** A message in a channel's history (not ephemeral, not deleted). */
  channelMessage(channelId: string, messageId: string): MessageRecord {
    const message = this.messages.get(messageId);
    if (!message || message.channelId !== channelId || message.deleted || message.ephemeral) {
      throw DiscordErrors.unknownMessage();
    }
    return message;
  }

  history(channelId: string): MessageRecord[] {
    return (this.channelHistory.get(channelId) ?? []).map((id) => this.messages.get(id) as MessageRecord);
  }

  saveMessage(message: MessageRecord): void {
    this.messages.set(message.id, message);
    for (const attachment of message.attachments) this.attachments.set(attachment.id, attachment);
    if (message.ephemeral) return;
    const history = this.channelHistory.get(message.channelId);
    if (history && !history.includes(message.id)) history.push(message.id);
    const channel = this.channels.get(message.channelId);
    if (channel) {
      channel.lastMessageId = message.id;
      channel.messageCount++;
      channel.totalMessageSent++;
    }
  }

  /**
   * Messages already in a channel before the test looks (no gateway events), fast enough for thousands: each gets a
   * snowflake of its own time, and the history stays in id order whatever was there before.
   */
  seedHistory(channelId: string, entries: readonly SeedMessage[]): MessageRecord[] {
    const channel = this.channel(channelId);
    const seeded = entries.map((entry) => {
      const message = messageRecord({
        id: snowflake(entry.at),
        channelId,
        guildId: channel.guildId,
        authorId: entry.authorId,
        content: entry.content,
        createdAt: entry.at,
      });
      this.messages.set(message.id, message);
      return message;
    });
    const history = this.channelHistory.get(channelId)!;
    history.push(...seeded.map((m) => m.id));
    history.sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
    channel.lastMessageId = history.at(-1) ?? null;
    channel.messageCount += seeded.length;
    channel.totalMessageSent += seeded.length;
    return seeded;
  }

  removeMessage(message: MessageRecord): void {
    message.deleted = true;
    const history = this.channelHistory.get(message.channelId);
    if (history) history.splice(history.indexOf(message.id), 1);
    const channel = this.channels.get(message.channelId);
    if (channel && channel.messageCount > 0) channel.messageCount--;
  }

  guildCommands(applicationId: string, guildId: string | null): CommandRecord[] {
    return [...this.commands.values()].filter((c) => c.applicationId === applicationId && c.guildId === guildId);
  }
}
