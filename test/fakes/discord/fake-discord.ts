import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Payloads } from './builders.ts';
import { Cdn, type CdnRequestRecord, type HeldTransfer } from './cdn.ts';
import { Gateway, type ConnectionRecord, type ReceivedPayload, type VoiceRequest } from './gateway.ts';
import { Intent } from './intents.ts';
import { submitModal, type SubmitModalInput } from './modals.ts';
import { pressButton, type PressButtonInput } from './components.ts';
import { clickComponent, invokeCommand, type ClickComponentInput, type InvokeCommandInput, type TestFile } from './interactions.ts';
import { resolveMentions } from './mentions.ts';
import { contentVisible, dispatchMessage, makeAttachment, restMessage } from './message-service.ts';
import { MessageFlag } from './message-validation.ts';
import { DEFAULT_EVERYONE_PERMISSIONS, Permission, type PermissionOverwrite } from './permissions.ts';
import { DEFAULT_RATE_LIMITS, RateLimiter, type RateLimitConfig, type RateLimitHit } from './rate-limiter.ts';
import {
  ChannelType,
  type ChannelRecord,
  type GuildRecord,
  type InteractionRecord,
  type Json,
  type MessageRecord,
  messageRecord,
  type RoleRecord,
  type UserRecord,
  type VoiceStateRecord,
} from './records.ts';
import { RestRouter, type RestRequestRecord } from './rest-router.ts';
import { channelRoutes } from './routes-channels.ts';
import { commandPayload, commandRoutes } from './routes-commands.ts';
import { coreRoutes } from './routes-core.ts';
import { interactionRoutes } from './routes-interactions.ts';
import { messageReactions, reactionRoutes } from './routes-reactions.ts';
import { snowflakeOnShard } from './sharding.ts';
import { discordTimestamp, snowflake } from './snowflake.ts';
import type { SeedMessage } from './store.ts';
import { Store } from './store.ts';
import { guildVoiceChannel, occupants, voiceEntryRefusal } from './voice-states.ts';
import type { ResolvedOptions, World } from './world.ts';

export interface FakeDiscordOptions {
  token?: string;
  applicationName?: string;
  /** Sent in HELLO; Discord uses 41250 ms. */
  heartbeatIntervalMs?: number;
  /** How long a disconnected gateway session stays resumable. */
  resumeWindowMs?: number;
  rateLimits?: Partial<RateLimitConfig>;
  /** Discord's 3 s window for the initial interaction response. */
  interactionResponseTimeoutMs?: number;
  /** Discord's 15 min lifetime of interaction tokens for followups and edits. */
  interactionTokenTtlMs?: number;
  /** Upload limit per request; Discord's default for bots is 10 MiB. */
  uploadLimitBytes?: number;
  /** Privileged intents switched on for the application; all on unless set to false. */
  privilegedIntents?: { guildMembers?: boolean; guildPresences?: boolean; messageContent?: boolean };
  /** Permissions of the bot's managed role in the default guild. */
  botPermissions?: bigint;
  /** Endpoint sent in VOICE_SERVER_UPDATE (host:port, no scheme), and a fixed voice token if wanted. */
  voiceEndpoint?: string;
  voiceToken?: string;
  /** How long signed CDN URLs stay valid. */
  cdnUrlTtlMs?: number;
  /** The shard count GET /gateway/bot recommends (what discord.js runs with shards 'auto'); default 1. */
  recommendedShards?: number;
  /** session_start_limit.max_concurrency: shards that may identify together per 5 s (discord.js waits between the rest). */
  maxConcurrency?: number;
  /** When set, an IDENTIFY naming another shard count is closed with 4010 Invalid shard. */
  shardCount?: number;
  /** A session that would hold more guilds than this is closed with 4011 Sharding required; Discord's is 2,500. */
  maxGuildsPerShard?: number;
}

export interface UserMessageAttachment extends TestFile {
  description?: string;
  /** Voice messages: length in seconds and base64 waveform. */
  durationSecs?: number;
  waveform?: string;
}

export interface SendMessageInput {
  channelId: string;
  authorId?: string;
  content?: string;
  attachments?: UserMessageAttachment[];
  embeds?: Json[];
  components?: Json[];
  /** Users pinged; parsed from <@id> in the content when omitted. */
  mentions?: string[];
  /**
   * Makes the message a reply (type 19). The original may have been deleted meanwhile: the reply then comes
   * with referenced_message null, as Discord sends it when the original is gone.
   */
  messageReference?: { messageId: string; channelId?: string };
  /**
   * Sends the reply's MESSAGE_CREATE without referenced_message, as Discord does when its backend did not fetch
   * the original (GET still shows it).
   */
  omitReferencedMessage?: boolean;
  flags?: number;
}

export interface ForwardMessageInput {
  /** Where the forward is posted. */
  channelId: string;
  authorId?: string;
  /** The message forwarded, from any channel the author can see. */
  source: { channelId: string; messageId: string };
}

export interface WaitForOptions {
  timeoutMs?: number;
  /** Shown in the timeout error. */
  description?: string;
}

interface Waiter {
  check(): boolean;
}

const DEFAULT_TOKEN_PREFIX = 'RkFLRS1ESVNDT1JE';

function resolveOptions(options: FakeDiscordOptions): ResolvedOptions {
  const privileged = options.privilegedIntents ?? {};
  return {
    token: options.token ?? `${DEFAULT_TOKEN_PREFIX}.${Buffer.from(String(Date.now())).toString('base64url')}.fake-secret`,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
    resumeWindowMs: options.resumeWindowMs ?? 120_000,
    rateLimits: { ...DEFAULT_RATE_LIMITS, ...options.rateLimits },
    interactionResponseTimeoutMs: options.interactionResponseTimeoutMs ?? 3_000,
    interactionTokenTtlMs: options.interactionTokenTtlMs ?? 15 * 60_000,
    uploadLimitBytes: options.uploadLimitBytes ?? 10 * 1024 * 1024,
    privilegedIntents:
      (privileged.guildMembers === false ? 0 : Intent.GuildMembers) |
      (privileged.guildPresences === false ? 0 : Intent.GuildPresences) |
      (privileged.messageContent === false ? 0 : Intent.MessageContent),
    voiceEndpoint: options.voiceEndpoint ?? 'voice.fake.invalid:443',
    voiceToken: options.voiceToken ?? null,
    voiceServers: new Map(),
    recommendedShards: options.recommendedShards ?? 1,
    maxConcurrency: options.maxConcurrency ?? 1,
    shardCount: options.shardCount ?? null,
    maxGuildsPerShard: options.maxGuildsPerShard ?? 2_500,
  };
}

/** A Discord stand-in on loopback: REST under /api/v10, a gateway websocket, and a CDN. */
export class FakeDiscord {
  /** Give this to discord.js as `rest.api`. */
  readonly restUrl: string;
  /** Base URL of the CDN (attachment URLs point here); discord.js `rest.cdn`. */
  readonly cdnUrl: string;
  readonly gatewayUrl: string;
  readonly port: number;
  readonly token: string;
  readonly applicationId: string;
  readonly botUser: UserRecord;
  readonly users: { owner: UserRecord; alice: UserRecord; bob: UserRecord };
  readonly guild: GuildRecord;
  readonly roles: { everyone: RoleRecord; bot: RoleRecord };
  readonly textChannel: ChannelRecord;
  readonly voiceChannel: ChannelRecord;
  /** The DM channel between the bot and alice. */
  readonly dmChannel: ChannelRecord;

  readonly #server: Server;
  readonly #world: World;
  readonly #router: RestRouter;
  readonly #gateway: Gateway;
  readonly #cdn: Cdn;
  readonly #waiters = new Set<Waiter>();
  readonly #internalErrors: unknown[] = [];

  private constructor(server: Server, port: number, options: FakeDiscordOptions) {
    this.#server = server;
    this.port = port;
    const base = `http://127.0.0.1:${port}`;
    this.restUrl = `${base}/api`;
    this.cdnUrl = base;
    this.gatewayUrl = `ws://127.0.0.1:${port}/gateway`;
    const resolved = resolveOptions(options);
    this.token = resolved.token;

    const store = new Store();
    this.#cdn = new Cdn(base, store, options.cdnUrlTtlMs ?? 24 * 3600_000);
    this.#gateway = new Gateway(`ws://127.0.0.1:${port}/gateway/resume`);
    this.applicationId = snowflake();
    this.botUser = store.addUser({ id: this.applicationId, username: options.applicationName ?? 'Herald', bot: true });
    const gateway = this.#gateway;
    this.#world = {
      store,
      payloads: new Payloads(store, this.#cdn),
      cdn: this.#cdn,
      gateway,
      options: resolved,
      bot: this.botUser,
      applicationId: this.applicationId,
      applicationName: this.botUser.username,
      gatewayUrl: this.gatewayUrl,
      changed: () => this.#notify(),
    };
    gateway.attach(this.#world);
    this.#router = new RestRouter(
      this.#world,
      [...coreRoutes, ...channelRoutes, ...commandRoutes, ...interactionRoutes, ...reactionRoutes],
      new RateLimiter(resolved.rateLimits),
    );

    this.users = {
      owner: store.addUser({ username: 'guild-owner', globalName: 'Guild Owner' }),
      alice: store.addUser({ username: 'alice', globalName: 'Alice' }),
      bob: store.addUser({ username: 'bob', globalName: 'Bob' }),
    };
    this.guild = store.addGuild({ name: 'Herald Test Guild', ownerId: this.users.owner.id, everyonePermissions: DEFAULT_EVERYONE_PERMISSIONS });
    this.roles = {
      everyone: this.guild.roles.get(this.guild.id) as RoleRecord,
      bot: store.addRole(this.guild.id, {
        name: this.botUser.username,
        permissions: options.botPermissions ?? DEFAULT_EVERYONE_PERMISSIONS,
        botId: this.botUser.id,
      }),
    };
    for (const user of Object.values(this.users)) store.addMember(this.guild.id, user.id);
    store.addMember(this.guild.id, this.botUser.id, [this.roles.bot.id]);
    this.textChannel = store.addChannel({ guildId: this.guild.id, type: ChannelType.GuildText, name: 'general' });
    this.voiceChannel = store.addChannel({ guildId: this.guild.id, type: ChannelType.GuildVoice, name: 'Voice' });
    this.dmChannel = store.dmChannelWith(this.users.alice.id);

    server.on('request', (req, res) => void this.#handle(req, res));
    server.on('upgrade', (req, socket, head) => {
      if (!this.#gateway.handleUpgrade(req, socket, head)) socket.destroy();
    });
  }

  static async start(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new FakeDiscord(server, (server.address() as AddressInfo).port, options);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const url = new URL(req.url ?? '/', this.cdnUrl);
      if (this.#cdn.handle(req, res, url)) return;
      if (await this.#router.handle(req, res, url)) return;
      res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ message: '404: Not Found', code: 0 }));
    } catch (error) {
      this.#internalErrors.push(error);
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ message: '500: Internal Server Error', code: 0 }));
    }
  }

  #notify(): void {
    for (const waiter of this.#waiters) waiter.check();
  }

  // ---- observation -------------------------------------------------------------------------------------------

  /** Every REST request, in arrival order. */
  get requests(): readonly RestRequestRecord[] {
    return this.#router.requests;
  }

  /** Every 429 served (route buckets and global). */
  get rateLimitHits(): readonly RateLimitHit[] {
    return this.#router.rateLimitHits;
  }

  get rateLimitedCount(): number {
    return this.#router.rateLimitHits.length;
  }

  /** Holds the CDN's transfers of an attachment after their first `afterBytes` bytes, until released. */
  holdCdnTransfer(attachmentId: string, afterBytes: number): HeldTransfer {
    return this.#cdn.hold(attachmentId, afterBytes);
  }

  get cdnRequests(): readonly CdnRequestRecord[] {
    return this.#cdn.requests;
  }

  /** Errors thrown inside the fake itself (answered 500); a correct fake keeps this empty. */
  get internalErrors(): readonly unknown[] {
    return this.#internalErrors;
  }

  /** Payloads the clients sent on the gateway (heartbeats, identify, voice state updates...). */
  get gatewayReceived(): readonly ReceivedPayload[] {
    return this.#gateway.received;
  }

  get gatewayConnections(): readonly ConnectionRecord[] {
    return this.#gateway.connections;
  }

  get voiceRequests(): readonly VoiceRequest[] {
    return this.#gateway.voiceRequests;
  }

  /** Dispatches of every gateway session so far (t, s, d), in order, for the live sessions, with the session's shard. */
  dispatched(event?: string): { sessionId: string; shard: [number, number]; s: number; t: string; d: Json }[] {
    return [...this.#gateway.sessions.values()].flatMap((session) =>
      session.events.filter((e) => !event || e.t === event).map((e) => ({ sessionId: session.id, shard: session.shard, ...e })),
    );
  }

  get openGatewayConnections(): number {
    return this.#gateway.openConnections;
  }

  /** The channel's messages in their current state (after edits, without deleted and ephemeral ones), oldest first. */
  messages(channelId: string): MessageRecord[] {
    return this.#world.store.history(channelId);
  }

  /** Any message the fake knows, including ephemeral and deleted ones. */
  message(id: string): MessageRecord | undefined {
    return this.#world.store.messages.get(id);
  }

  /** The emoji on a message, each with the ids of those who reacted with it. */
  reactions(messageId: string): Record<string, string[]> {
    return messageReactions(this.#world, messageId);
  }

  /** A message as GET /channels/:id/messages/:id would return it. */
  messagePayload(id: string): Json {
    const message = this.#world.store.messages.get(id);
    if (!message) throw new Error(`fake discord: no message ${id}`);
    return restMessage(this.#world, message);
  }

  get interactions(): InteractionRecord[] {
    return [...this.#world.store.interactions.values()];
  }

  interaction(id: string): InteractionRecord | undefined {
    return this.#world.store.interactions.get(id);
  }

  /** Registered commands as Discord returns them; guildId null (default) for global ones. */
  commands(guildId: string | null = null): Json[] {
    return this.#world.store.guildCommands(this.applicationId, guildId).map(commandPayload);
  }

  channel(id: string): ChannelRecord | undefined {
    return this.#world.store.channels.get(id);
  }

  /** Resolves with the predicate's first truthy result, re-checked on every change of the fake and every 20 ms. */
  waitFor<T>(predicate: () => T | undefined | null | false, options: WaitForOptions | number = {}): Promise<T> {
    const { timeoutMs = 5_000, description = 'condition' } = typeof options === 'number' ? { timeoutMs: options } : options;
    return new Promise<T>((resolve, reject) => {
      const finish = () => {
        clearInterval(interval);
        clearTimeout(timer);
        this.#waiters.delete(waiter);
      };
      const waiter: Waiter = {
        check: () => {
          let value: T | undefined | null | false;
          try {
            value = predicate();
          } catch (error) {
            finish();
            reject(error);
            return true;
          }
          if (!value) return false;
          finish();
          resolve(value);
          return true;
        },
      };
      const interval = setInterval(() => waiter.check(), 20);
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`fake discord: timed out after ${timeoutMs} ms waiting for ${description}`));
      }, timeoutMs);
      this.#waiters.add(waiter);
      waiter.check();
    });
  }

  // ---- acting as users ---------------------------------------------------------------------------------------

  addUser(input: { username: string; globalName?: string; bot?: boolean }): UserRecord {
    return this.#world.store.addUser(input);
  }

  /**
   * Adds a guild with the bot in it (unless withBot is false) and announces it with GUILD_CREATE (to the session
   * of its shard). `shard: [id, count]` picks an id that puts the guild on that shard.
   */
  addGuild(input: { name: string; ownerId?: string; memberIds?: string[]; withBot?: boolean; shard?: [number, number] }): GuildRecord {
    const { store } = this.#world;
    const guild = store.addGuild({
      name: input.name,
      ownerId: input.ownerId ?? this.users.owner.id,
      everyonePermissions: DEFAULT_EVERYONE_PERMISSIONS,
      ...(input.shard && { id: snowflakeOnShard(...input.shard) }),
    });
    for (const id of new Set([guild.ownerId, ...(input.memberIds ?? [])])) store.addMember(guild.id, id);
    if (input.withBot !== false) {
      const role = store.addRole(guild.id, { name: this.botUser.username, permissions: DEFAULT_EVERYONE_PERMISSIONS, botId: this.botUser.id });
      store.addMember(guild.id, this.botUser.id, [role.id]);
      this.#world.gateway.dispatch('GUILD_CREATE', Intent.Guilds, (r) => this.#gateway.guildCreatePayload(guild.id, r.intents));
    }
    this.#notify();
    return guild;
  }

  /** Adds a channel (threads need parentId; voice channels may have a userLimit) and dispatches CHANNEL_CREATE or THREAD_CREATE. */
  addChannel(input: {
    guildId?: string;
    name: string;
    type?: number;
    parentId?: string;
    topic?: string;
    permissionOverwrites?: PermissionOverwrite[];
    ownerId?: string;
    userLimit?: number;
  }): ChannelRecord {
    const type = input.type ?? ChannelType.GuildText;
    const isThread = type === ChannelType.PublicThread || type === ChannelType.PrivateThread;
    const channel = this.#world.store.addChannel({
      guildId: input.guildId ?? this.guild.id,
      type,
      name: input.name,
      parentId: input.parentId ?? null,
      topic: input.topic ?? null,
      permissionOverwrites: input.permissionOverwrites,
      ownerId: isThread ? (input.ownerId ?? this.users.alice.id) : null,
      userLimit: type === ChannelType.GuildVoice ? input.userLimit : undefined,
    });
    if (isThread) {
      const now = discordTimestamp();
      channel.thread = { archived: false, autoArchiveDuration: 4320, archiveTimestamp: now, locked: false, createTimestamp: now };
      channel.memberIds.push(channel.ownerId as string);
    }
    this.#world.gateway.dispatch(isThread ? 'THREAD_CREATE' : 'CHANNEL_CREATE', Intent.Guilds, () => ({
      ...this.#world.payloads.channel(channel),
      ...(isThread ? { newly_created: true } : {}),
    }));
    this.#notify();
    return channel;
  }

  addRole(input: { guildId?: string; name: string; permissions?: bigint; mentionable?: boolean }): RoleRecord {
    const guildId = input.guildId ?? this.guild.id;
    const role = this.#world.store.addRole(guildId, { name: input.name, permissions: input.permissions ?? 0n, mentionable: input.mentionable });
    this.#world.gateway.dispatch('GUILD_ROLE_CREATE', Intent.Guilds, () => ({ guild_id: guildId, role: this.#world.payloads.role(role) }));
    return role;
  }

  addMember(input: { guildId?: string; userId: string; roleIds?: string[]; nick?: string }): void {
    const guildId = input.guildId ?? this.guild.id;
    const member = this.#world.store.addMember(guildId, input.userId, input.roleIds ?? [], input.nick ?? null);
    this.#world.gateway.dispatch('GUILD_MEMBER_ADD', Intent.GuildMembers, () => ({
      ...this.#world.payloads.member(member, true),
      guild_id: guildId,
    }));
  }

  /** The DM channel between the bot and a user (created if needed; bots get no CHANNEL_CREATE for DMs). */
  dmChannelFor(userId: string): ChannelRecord {
    return this.#world.store.dmChannelWith(userId);
  }

  /** A user posts a message: stored, then dispatched as MESSAGE_CREATE with mentions, member and attachments. */
  sendMessage(input: SendMessageInput): Json {
    const world = this.#world;
    const { store, payloads } = world;
    const channel = store.channel(input.channelId);
    const authorId = input.authorId ?? (channel.type === ChannelType.DM ? (channel.recipientIds[0] as string) : this.users.alice.id);
    const guild = channel.guildId ? store.guild(channel.guildId) : null;
    if (guild && !guild.members.has(authorId)) throw new Error('fake discord: the author is not a member of the guild');
    if (!guild && channel.recipientIds[0] !== authorId) throw new Error('fake discord: the author is not in this DM');
    const reference = input.messageReference
      ? this.#repliedTo(input.messageReference.channelId ?? channel.id, input.messageReference.messageId)
      : null;
    const content = input.content ?? '';
    const parsed = resolveMentions(store, {
      content,
      guild,
      allowed: null,
      repliedAuthorId: reference?.authorId ?? null,
      canMentionEveryone: guild ? (payloads.permissionsIn(guild, authorId, channel) & Permission.MentionEveryone) !== 0n : false,
    });
    const message = messageRecord({
      id: snowflake(),
      channelId: channel.id,
      guildId: channel.guildId,
      authorId,
      type: reference ? 19 : 0,
      content,
      embeds: input.embeds ?? [],
      components: input.components ?? [],
      flags: input.flags ?? 0,
      createdAt: Date.now(),
      mentionIds: input.mentions ?? parsed.userIds,
      mentionRoleIds: parsed.roleIds,
      mentionEveryone: parsed.everyone,
      reference: reference ? { type: 0, messageId: reference.id, channelId: reference.channelId, guildId: reference.guildId } : null,
    });
    message.attachments = (input.attachments ?? []).map((file) =>
      makeAttachment({ filename: file.filename, bytes: Buffer.from(file.bytes) }, channel.id, false, {
        id: '',
        filename: null,
        description: file.description ?? null,
        title: null,
        isSpoiler: false,
        durationSecs: file.durationSecs ?? null,
        waveform: file.waveform ?? null,
      }),
    );
    store.saveMessage(message);
    dispatchMessage(world, 'MESSAGE_CREATE', message, { referencedMessage: !input.omitReferencedMessage });
    this.#notify();
    return restMessage(world, message);
  }

  /** A channel's past messages, oldest first, put in at once without gateway events (see Store.seedHistory). */
  seedHistory(channelId: string, messages: readonly SeedMessage[]): MessageRecord[] {
    const seeded = this.#world.store.seedHistory(channelId, messages);
    this.#notify();
    return seeded;
  }

  /** A message of the channel that a reply may name: a deleted one too (the reply was on its way), never an ephemeral one. */
  #repliedTo(channelId: string, messageId: string): MessageRecord {
    const message = this.#world.store.messages.get(messageId);
    if (!message || message.channelId !== channelId || message.ephemeral) throw new Error(`fake discord: no message ${messageId} to reply to`);
    return message;
  }

  /**
   * A user forwards a message: a new message of type 0 with no content of its own, a message_reference of type 1
   * FORWARD and a snapshot of the source's content, attachments and flags, dispatched as MESSAGE_CREATE.
   */
  forwardMessage(input: ForwardMessageInput): Json {
    const world = this.#world;
    const { store, payloads } = world;
    const channel = store.channel(input.channelId);
    const authorId = input.authorId ?? (channel.type === ChannelType.DM ? (channel.recipientIds[0] as string) : this.users.alice.id);
    const source = store.channelMessage(input.source.channelId, input.source.messageId);
    const sourceChannel = store.channel(source.channelId);
    const canSee = (target: ChannelRecord) =>
      target.guildId
        ? (payloads.permissionsIn(store.guild(target.guildId), authorId, target) & Permission.ViewChannel) !== 0n
        : target.recipientIds[0] === authorId;
    if (!canSee(channel) || !canSee(sourceChannel)) throw new Error('fake discord: the author cannot see both channels of the forward');
    if (source.type !== 0 && source.type !== 19) throw new Error('fake discord: only default messages and replies can be forwarded');
    const message = messageRecord({
      id: snowflake(),
      channelId: channel.id,
      guildId: channel.guildId,
      authorId,
      flags: MessageFlag.HasSnapshot,
      createdAt: Date.now(),
      reference: { type: 1, messageId: source.id, channelId: source.channelId, guildId: source.guildId },
      snapshots: [
        {
          type: source.type,
          content: source.content,
          embeds: source.embeds,
          components: source.components,
          attachments: source.attachments,
          flags: source.flags,
          createdAt: source.createdAt,
          editedAt: source.editedAt,
          mentionIds: source.mentionIds,
          mentionRoleIds: source.mentionRoleIds,
        },
      ],
    });
    store.saveMessage(message);
    dispatchMessage(world, 'MESSAGE_CREATE', message);
    this.#notify();
    return restMessage(world, message);
  }

  /**
   * A user edits their message: MESSAGE_UPDATE with the whole message (as Discord sends every update since 2024),
   * edited_timestamp set and mentions parsed anew from the new text; a reply keeps pinging the author it answers if
   * it did. `at` is when the edit happens (default now), so a test can edit "later" without waiting.
   */
  editUserMessage(input: { channelId: string; messageId: string; content: string; at?: number }): void {
    const world = this.#world;
    const { store, payloads } = world;
    const message = store.channelMessage(input.channelId, input.messageId);
    const channel = store.channel(message.channelId);
    const guild = channel.guildId ? store.guild(channel.guildId) : null;
    const repliedAuthorId = message.type === 19 && message.reference ? (store.messages.get(message.reference.messageId)?.authorId ?? null) : null;
    const mentions = resolveMentions(store, {
      content: input.content,
      guild,
      allowed: null,
      repliedAuthorId: repliedAuthorId !== null && message.mentionIds.includes(repliedAuthorId) ? repliedAuthorId : null,
      canMentionEveryone: guild ? (payloads.permissionsIn(guild, message.authorId, channel) & Permission.MentionEveryone) !== 0n : false,
    });
    message.content = input.content;
    message.editedAt = input.at ?? Date.now();
    message.mentionIds = mentions.userIds;
    message.mentionRoleIds = mentions.roleIds;
    message.mentionEveryone = mentions.everyone;
    dispatchMessage(world, 'MESSAGE_UPDATE', message);
    this.#notify();
  }

  /**
   * Discord unfurls the links of a message a moment after it is posted: MESSAGE_UPDATE with the whole message and
   * its new embeds (by default a link embed per URL in its text); the text and edited_timestamp stay as they were.
   */
  unfurlLinks(input: { channelId: string; messageId: string; embeds?: Json[] }): void {
    const world = this.#world;
    const message = world.store.channelMessage(input.channelId, input.messageId);
    const urls = message.content.match(/https?:\/\/[^\s<>]+/g) ?? [];
    message.embeds = input.embeds ?? urls.map((url) => ({ type: 'link', url, title: new URL(url).hostname }));
    dispatchMessage(world, 'MESSAGE_UPDATE', message);
    this.#notify();
  }

  /**
   * A user (or moderator) deletes a message: MESSAGE_DELETE. The message is gone from REST at once (edits get 404
   * Unknown Message); `gatewayDelayMs` holds the event back, as Discord's gateway may deliver it after that.
   */
  deleteUserMessage(input: { channelId: string; messageId: string; gatewayDelayMs?: number }): void {
    const world = this.#world;
    const message = world.store.channelMessage(input.channelId, input.messageId);
    world.store.removeMessage(message);
    const dispatch = () =>
      world.gateway.dispatch('MESSAGE_DELETE', message.guildId ? Intent.GuildMessages : Intent.DirectMessages, () => ({
        id: message.id,
        channel_id: message.channelId,
        ...(message.guildId ? { guild_id: message.guildId } : {}),
      }));
    if (input.gatewayDelayMs === undefined) dispatch();
    else setTimeout(dispatch, input.gatewayDelayMs).unref();
    this.#notify();
  }

  /** A user runs a registered command; dispatches INTERACTION_CREATE. Defaults: alice in the text channel. */
  invokeCommand(input: Omit<InvokeCommandInput, 'userId' | 'channelId'> & { userId?: string; channelId?: string }): InteractionRecord {
    return invokeCommand(this.#world, { ...input, userId: input.userId ?? this.users.alice.id, channelId: input.channelId ?? this.textChannel.id });
  }

  /**
   * A user picks a message command from a message's Apps menu (type 3 command with `target_id` and the message in
   * `resolved.messages`), in the message's channel; `locale` is the user's client language (default en-US).
   */
  runMessageCommand(input: { name: string; messageId: string; userId?: string; locale?: string }): InteractionRecord {
    const message = this.#world.store.messages.get(input.messageId);
    if (!message || message.deleted) throw new Error(`fake discord: no message ${input.messageId}`);
    return this.invokeCommand({
      name: input.name,
      commandType: 3,
      targetId: message.id,
      channelId: message.channelId,
      ...(input.userId !== undefined && { userId: input.userId }),
      ...(input.locale !== undefined && { locale: input.locale }),
    });
  }

  /** The user fills in and submits the modal an interaction was answered with; dispatches INTERACTION_CREATE (type 5). */
  submitModal(input: Omit<SubmitModalInput, 'userId'> & { userId?: string }): InteractionRecord {
    const source = this.#world.store.interactions.get(input.interactionId);
    return submitModal(this.#world, { ...input, userId: input.userId ?? source?.userId ?? this.users.alice.id });
  }

  /** A user clicks a button or picks from a select menu of a message; dispatches INTERACTION_CREATE. */
  clickComponent(input: Omit<ClickComponentInput, 'userId'> & { userId?: string }): InteractionRecord {
    return clickComponent(this.#world, { ...input, userId: input.userId ?? this.users.alice.id });
  }

  /** `userId` (default Alice) presses the button labelled `button` (or with that custom_id) on a message. */
  pressButton(input: Omit<PressButtonInput, 'userId'> & { userId?: string }): InteractionRecord {
    return pressButton(this.#world, { ...input, userId: input.userId ?? this.users.alice.id });
  }

  /**
   * A user joins, moves or leaves (channelId null) voice: VOICE_STATE_UPDATE. Like Discord, it refuses a channel
   * the user may not connect to, or one at its user limit (unless the user may pass it). The bot joins through
   * the gateway (op 4); see moveMember for a moderator moving it.
   */
  setVoiceState(input: { userId: string; channelId: string | null; guildId?: string; selfMute?: boolean; selfDeaf?: boolean }): void {
    const world = this.#world;
    const guild = world.store.guild(input.guildId ?? this.guild.id);
    if (input.userId === this.botUser.id) throw new Error('fake discord: the bot enters voice with gateway op 4, not setVoiceState');
    if (input.channelId !== null) {
      const channel = this.#voiceChannel(guild, input.channelId);
      const refused = voiceEntryRefusal(world, guild, channel, input.userId);
      if (refused === 'full') throw new Error(`fake discord: ${channel.name} is full (${occupants(guild, channel.id)}/${channel.userLimit})`);
      if (refused) throw new Error(`fake discord: the user may not connect to ${channel.name}`);
    }
    this.#putVoiceState(guild, input.userId, input.channelId, { selfMute: input.selfMute ?? false, selfDeaf: input.selfDeaf ?? false });
  }

  /**
   * A moderator moves a member (the bot too) to another voice channel, or disconnects them (channelId null).
   * Moderators may move members into full channels. A moved bot also gets VOICE_SERVER_UPDATE for its new
   * channel; ending its call on the old voice server (close code 4014) is that server's part.
   */
  moveMember(input: { userId: string; channelId: string | null; guildId?: string }): void {
    const guild = this.#world.store.guild(input.guildId ?? this.guild.id);
    if (input.channelId !== null) this.#voiceChannel(guild, input.channelId);
    const state = guild.voiceStates.get(input.userId);
    if (!state?.channelId) throw new Error('fake discord: only members in voice can be moved or disconnected');
    if (input.userId === this.botUser.id) this.#gateway.moveBot(guild, input.channelId);
    else this.#putVoiceState(guild, input.userId, input.channelId, state);
  }

  #voiceChannel(guild: GuildRecord, channelId: string): ChannelRecord {
    const channel = guildVoiceChannel(this.#world, guild, channelId);
    if (!channel) throw new Error(`fake discord: ${channelId} is not a voice channel of ${guild.name}`);
    return channel;
  }

  /** A member's voice session lasts while they stay in voice, moves included. */
  #putVoiceState(guild: GuildRecord, userId: string, channelId: string | null, flags: { selfMute: boolean; selfDeaf: boolean }): void {
    const world = this.#world;
    const previous = guild.voiceStates.get(userId);
    const state: VoiceStateRecord = {
      guildId: guild.id,
      channelId,
      userId,
      sessionId: previous?.channelId ? previous.sessionId : randomBytes(16).toString('hex'),
      selfMute: flags.selfMute,
      selfDeaf: flags.selfDeaf,
      selfVideo: false,
      mute: false,
      deaf: false,
    };
    guild.voiceStates.set(userId, state);
    world.gateway.dispatch('VOICE_STATE_UPDATE', Intent.GuildVoiceStates, () => world.payloads.voiceState(state, true));
    this.#notify();
  }

  /**
   * Where VOICE_SERVER_UPDATE sends the bot next time it enters a voice channel: `channelId`'s own server, or
   * without it the default for every channel. Without a token each update carries a fresh one.
   */
  setVoiceServer(input: { endpoint: string; token?: string; channelId?: string }): void {
    const address = { endpoint: input.endpoint, token: input.token ?? null };
    if (input.channelId !== undefined) {
      this.#world.options.voiceServers.set(input.channelId, address);
      return;
    }
    this.#world.options.voiceEndpoint = address.endpoint;
    this.#world.options.voiceToken = address.token;
  }

  /** Whether the bot (with its gateway intents) would see this message's content. */
  contentVisibleToBot(message: MessageRecord, intents: number): boolean {
    return contentVisible(this.#world, message, intents);
  }

  // ---- gateway controls --------------------------------------------------------------------------------------

  /** Closes gateway connections with `code` (default 4000, resumable) or, with abrupt, cuts the TCP socket. */
  /** Dispatches to the gateway session `sessionId` wait until the returned function is called (see Gateway.lag). */
  lagGatewaySession(sessionId: string): () => void {
    return this.#gateway.lag(sessionId);
  }

  dropGatewayConnections(options: { code?: number; abrupt?: boolean } = {}): void {
    this.#gateway.drop(options);
  }

  /** Sends op 9 INVALID_SESSION; when not resumable the sessions are forgotten and clients must re-identify. */
  invalidateSessions(resumable: boolean): void {
    this.#gateway.invalidateSessions(resumable);
  }

  /** Sends op 7 RECONNECT. */
  requestReconnect(): void {
    this.#gateway.requestReconnect();
  }

  /** Sends op 1 HEARTBEAT, which clients must answer at once. */
  requestHeartbeat(): void {
    this.#gateway.requestHeartbeat();
  }

  async close(): Promise<void> {
    this.#gateway.close();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#waiters.clear();
  }
}

export function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  return FakeDiscord.start(options);
}
