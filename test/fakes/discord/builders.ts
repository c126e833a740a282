import type { Cdn } from './cdn.ts';
import { computePermissions } from './permissions.ts';
import {
  ChannelType,
  type AttachmentRecord,
  type ChannelRecord,
  type GuildRecord,
  type Json,
  type MemberRecord,
  type MessageRecord,
  type RoleRecord,
  type SnapshotRecord,
  type UserRecord,
  type VoiceStateRecord,
} from './records.ts';
import { discordTimestamp } from './snowflake.ts';
import type { Store } from './store.ts';

export interface MessageView {
  /** Gateway events carry guild_id and the author's member; REST responses do not. */
  gateway: boolean;
  /** False when the receiver lacks the MESSAGE_CONTENT intent and none of Discord's exceptions apply. */
  contentVisible: boolean;
  /**
   * False to leave a reply's referenced_message out, as Discord does when its backend did not fetch the
   * original: the receiver then knows nothing of it and must fetch it itself.
   */
  referencedMessage?: boolean;
}

/** Builds Discord API objects from the store's records. */
export class Payloads {
  readonly #store: Store;
  readonly #cdn: Cdn;

  constructor(store: Store, cdn: Cdn) {
    this.#store = store;
    this.#cdn = cdn;
  }

  user(user: UserRecord): Json {
    return {
      id: user.id,
      username: user.username,
      avatar: null,
      discriminator: user.bot ? '0000' : '0',
      public_flags: 0,
      flags: 0,
      ...(user.bot ? { bot: true } : {}),
      banner: null,
      accent_color: null,
      global_name: user.globalName,
      avatar_decoration_data: null,
      collectibles: null,
      primary_guild: null,
    };
  }

  role(role: RoleRecord): Json {
    return {
      id: role.id,
      name: role.name,
      description: null,
      permissions: role.permissions.toString(),
      position: role.position,
      color: role.color,
      colors: { primary_color: role.color, secondary_color: null, tertiary_color: null },
      hoist: role.hoist,
      managed: role.botId !== null,
      mentionable: role.mentionable,
      icon: null,
      unicode_emoji: null,
      flags: 0,
      ...(role.botId ? { tags: { bot_id: role.botId } } : {}),
    };
  }

  member(member: MemberRecord, withUser: boolean): Json {
    return {
      ...(withUser ? { user: this.user(this.#store.user(member.userId)) } : {}),
      avatar: null,
      banner: null,
      communication_disabled_until: null,
      flags: 0,
      joined_at: member.joinedAt,
      nick: member.nick,
      pending: false,
      premium_since: null,
      roles: member.roleIds,
      deaf: false,
      mute: false,
    };
  }

  permissionsIn(guild: GuildRecord, userId: string, channel: ChannelRecord | null): bigint {
    const member = guild.members.get(userId);
    if (!member) return 0n;
    const overwriteSource = channel?.thread && channel.parentId ? (this.#store.channels.get(channel.parentId) ?? channel) : channel;
    return computePermissions(
      {
        guildId: guild.id,
        ownerId: guild.ownerId,
        userId,
        memberRoleIds: member.roleIds,
        rolePermissions: new Map([...guild.roles.values()].map((r) => [r.id, r.permissions])),
      },
      overwriteSource ? overwriteSource.permissionOverwrites : null,
    );
  }

  channel(channel: ChannelRecord, options: { inGuildCreate?: boolean } = {}): Json {
    const base: Json = { id: channel.id, type: channel.type, flags: 0, last_message_id: channel.lastMessageId };
    if (channel.type === ChannelType.DM) {
      return { ...base, recipients: channel.recipientIds.map((id) => this.user(this.#store.user(id))) };
    }
    const guildFields: Json = {
      ...(options.inGuildCreate ? {} : { guild_id: channel.guildId }),
      name: channel.name,
      parent_id: channel.parentId,
      rate_limit_per_user: channel.rateLimitPerUser,
    };
    if (channel.thread) {
      return {
        ...base,
        ...guildFields,
        owner_id: channel.ownerId,
        thread_metadata: {
          archived: channel.thread.archived,
          auto_archive_duration: channel.thread.autoArchiveDuration,
          archive_timestamp: channel.thread.archiveTimestamp,
          locked: channel.thread.locked,
          create_timestamp: channel.thread.createTimestamp,
        },
        message_count: channel.messageCount,
        member_count: channel.memberIds.length,
        total_message_sent: channel.totalMessageSent,
        member_ids_preview: channel.memberIds.slice(0, 8),
      };
    }
    const specific: Json =
      channel.type === ChannelType.GuildVoice
        ? { bitrate: 64000, user_limit: channel.userLimit, rtc_region: null }
        : { topic: channel.topic, default_auto_archive_duration: 4320 };
    return {
      ...base,
      ...guildFields,
      ...specific,
      position: channel.position,
      permission_overwrites: channel.permissionOverwrites,
      nsfw: channel.nsfw,
    };
  }

  voiceState(state: VoiceStateRecord, withMember: boolean): Json {
    const guild = this.#store.guild(state.guildId);
    const member = guild.members.get(state.userId);
    return {
      ...(withMember ? { guild_id: state.guildId } : {}),
      channel_id: state.channelId,
      user_id: state.userId,
      ...(withMember && member ? { member: this.member(member, true) } : {}),
      session_id: state.sessionId,
      deaf: state.deaf,
      mute: state.mute,
      self_deaf: state.selfDeaf,
      self_mute: state.selfMute,
      self_video: state.selfVideo,
      self_stream: false,
      suppress: false,
      request_to_speak_timestamp: null,
    };
  }

  guildCreate(guild: GuildRecord, memberIds: readonly string[]): Json {
    const channels = guild.channelIds.map((id) => this.#store.channel(id));
    return {
      id: guild.id,
      name: guild.name,
      icon: null,
      splash: null,
      discovery_splash: null,
      banner: null,
      description: null,
      owner_id: guild.ownerId,
      region: 'deprecated',
      afk_channel_id: null,
      afk_timeout: 300,
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      mfa_level: 0,
      nsfw_level: 0,
      premium_tier: 0,
      premium_subscription_count: 0,
      premium_progress_bar_enabled: false,
      preferred_locale: guild.preferredLocale,
      system_channel_id: null,
      system_channel_flags: 0,
      rules_channel_id: null,
      public_updates_channel_id: null,
      safety_alerts_channel_id: null,
      max_members: 500000,
      max_video_channel_users: 25,
      max_stage_video_channel_users: 50,
      vanity_url_code: null,
      application_id: null,
      features: [],
      roles: [...guild.roles.values()].map((r) => this.role(r)),
      emojis: [],
      stickers: [],
      joined_at: guild.members.get(guild.ownerId)?.joinedAt ?? guild.createdAt,
      large: false,
      unavailable: false,
      lazy: true,
      member_count: guild.members.size,
      members: memberIds.flatMap((id) => {
        const member = guild.members.get(id);
        return member ? [this.member(member, true)] : [];
      }),
      channels: channels.filter((c) => !c.thread).map((c) => this.channel(c, { inGuildCreate: true })),
      threads: channels.filter((c) => c.thread && !c.thread.archived).map((c) => this.channel(c)),
      voice_states: [...guild.voiceStates.values()].filter((s) => s.channelId).map((s) => this.voiceState(s, false)),
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
      embedded_activities: [],
      activity_instances: [],
      version: Date.now(),
    };
  }

  attachment(attachment: AttachmentRecord): Json {
    const url = this.#cdn.url(attachment);
    return {
      id: attachment.id,
      filename: attachment.filename,
      size: attachment.bytes.length,
      url,
      proxy_url: url,
      ...(attachment.contentType !== null ? { content_type: attachment.contentType } : {}),
      ...(attachment.width !== null ? { width: attachment.width, height: attachment.height } : {}),
      ...(attachment.description !== null ? { description: attachment.description } : {}),
      ...(attachment.title !== null ? { title: attachment.title } : {}),
      ...(attachment.durationSecs !== null ? { duration_secs: attachment.durationSecs } : {}),
      ...(attachment.waveform !== null ? { waveform: attachment.waveform } : {}),
      ...(attachment.ephemeral ? { ephemeral: true } : {}),
      ...(attachment.flags ? { flags: attachment.flags } : {}),
      content_scheme: null,
    };
  }

  /** The forwarded message's fields a snapshot keeps: no id, channel or author of the original. */
  snapshot(snapshot: SnapshotRecord, visible: boolean): Json {
    return {
      type: snapshot.type,
      content: visible ? snapshot.content : '',
      mentions: snapshot.mentionIds.map((id) => this.user(this.#store.user(id))),
      mention_roles: snapshot.mentionRoleIds,
      attachments: visible ? snapshot.attachments.map((a) => this.attachment(a)) : [],
      embeds: visible ? snapshot.embeds : [],
      timestamp: discordTimestamp(snapshot.createdAt),
      edited_timestamp: snapshot.editedAt === null ? null : discordTimestamp(snapshot.editedAt),
      flags: snapshot.flags,
      components: visible ? snapshot.components : [],
    };
  }

  message(message: MessageRecord, view: MessageView, depth = 0): Json {
    const author = this.#store.user(message.authorId);
    const guild = message.guildId ? this.#store.guilds.get(message.guildId) : undefined;
    const mentionUser = (id: string): Json => {
      const member = view.gateway && guild ? guild.members.get(id) : undefined;
      return { ...this.user(this.#store.user(id)), ...(member ? { member: this.member(member, false) } : {}) };
    };
    const visible = view.contentVisible;
    const suppressed = (message.flags & 4) !== 0;
    const payload: Json = {
      type: message.type,
      content: visible ? message.content : '',
      mentions: message.mentionIds.map(mentionUser),
      mention_roles: message.mentionRoleIds,
      attachments: visible ? message.attachments.map((a) => this.attachment(a)) : [],
      embeds: visible && !suppressed ? message.embeds : [],
      timestamp: discordTimestamp(message.createdAt),
      edited_timestamp: message.editedAt === null ? null : discordTimestamp(message.editedAt),
      flags: message.flags,
      components: visible ? message.components : [],
      id: message.id,
      channel_id: message.channelId,
      author: this.user(author),
      pinned: false,
      mention_everyone: message.mentionEveryone,
      tts: message.tts,
    };
    if (message.nonce !== null) payload.nonce = message.nonce;
    if (message.webhookId) payload.webhook_id = message.webhookId;
    if (message.applicationId) payload.application_id = message.applicationId;
    if (message.poll && visible) payload.poll = message.poll;
    if (message.reference) {
      payload.message_reference = {
        type: message.reference.type,
        channel_id: message.reference.channelId,
        message_id: message.reference.messageId,
        ...(message.reference.guildId ? { guild_id: message.reference.guildId } : {}),
      };
      if (message.type === 19 && depth === 0 && view.referencedMessage !== false) {
        const referenced = this.#store.messages.get(message.reference.messageId);
        payload.referenced_message =
          referenced && !referenced.deleted ? this.message(referenced, { gateway: false, contentVisible: visible }, depth + 1) : null;
      }
    }
    if (message.snapshots.length > 0) {
      payload.message_snapshots = message.snapshots.map((snapshot) => ({ message: this.snapshot(snapshot, visible) }));
    }
    if (message.interaction) {
      const meta = message.interaction;
      const user = this.user(this.#store.user(meta.userId));
      payload.interaction_metadata = {
        id: meta.id,
        type: meta.type,
        user,
        authorizing_integration_owners: meta.guildId ? { '0': meta.guildId } : { '1': meta.userId },
        ...(meta.type === 2 ? { name: meta.name, command_type: 1 } : {}),
        ...(meta.originalResponseMessageId ? { original_response_message_id: meta.originalResponseMessageId } : {}),
      };
      payload.interaction = { id: meta.id, type: meta.type, name: meta.name, user };
    }
    if (message.threadId) {
      const thread = this.#store.channels.get(message.threadId);
      if (thread) payload.thread = this.channel(thread);
    }
    if (view.gateway) {
      const channel = this.#store.channels.get(message.channelId);
      if (channel) payload.channel_type = channel.type;
      if (message.guildId) payload.guild_id = message.guildId;
      const member = guild?.members.get(message.authorId);
      if (member && !message.webhookId) payload.member = this.member(member, false);
    }
    return payload;
  }
}
