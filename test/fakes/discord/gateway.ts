import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { GatewayConnection, type Compression } from './gateway-connection.ts';
import { Intent, KNOWN_INTENTS, PRIVILEGED_INTENTS, applicationFlags } from './intents.ts';
import type { GuildRecord, Json, VoiceStateRecord } from './records.ts';
import { dispatchGuild, shardOf } from './sharding.ts';
import { guildVoiceChannel, voiceEntryRefusal, voiceServerUpdate, type VoiceEntryRefusal } from './voice-states.ts';
import type { Dispatcher, Receiver, World } from './world.ts';

export const Op = {
  Dispatch: 0,
  Heartbeat: 1,
  Identify: 2,
  PresenceUpdate: 3,
  VoiceStateUpdate: 4,
  Resume: 6,
  Reconnect: 7,
  RequestGuildMembers: 8,
  InvalidSession: 9,
  Hello: 10,
  HeartbeatAck: 11,
} as const;

export const CloseCode = {
  UnknownError: 4000,
  UnknownOpcode: 4001,
  DecodeError: 4002,
  NotAuthenticated: 4003,
  AuthenticationFailed: 4004,
  AlreadyAuthenticated: 4005,
  InvalidSeq: 4007,
  RateLimited: 4008,
  SessionTimedOut: 4009,
  InvalidShard: 4010,
  ShardingRequired: 4011,
  InvalidApiVersion: 4012,
  InvalidIntents: 4013,
  DisallowedIntents: 4014,
} as const;

export interface StoredEvent {
  s: number;
  t: string;
  d: Json;
}

export interface GatewaySession {
  id: string;
  intents: number;
  seq: number;
  /** Every dispatch of the session, in order; resumes replay from here. */
  events: StoredEvent[];
  connection: GatewayConnection | null;
  disconnectedAt: number | null;
  identify: Json;
  presence: Json | null;
  /** [shard id, shard count] from IDENTIFY; [0, 1] when the client did not shard. */
  shard: [number, number];
}

export interface ReceivedPayload {
  op: number;
  d: unknown;
  sessionId: string | null;
  at: number;
}

export interface ConnectionRecord {
  path: string;
  query: Record<string, string>;
  openedAt: number;
  closedAt: number | null;
  closeCode: number | null;
  closedBy: 'client' | 'server' | null;
  sessionId: string | null;
  /** The shard the connection identified as. */
  shard: [number, number] | null;
}

export interface VoiceRequest {
  guildId: string;
  channelId: string | null;
  selfMute: boolean;
  selfDeaf: boolean;
  /** Why Discord ignored the request, or null when it was carried out. */
  refused: VoiceEntryRefusal | null;
  at: number;
}

const MAX_STORED_EVENTS = 10_000;
const SEND_LIMIT = 120;
const SEND_WINDOW_MS = 60_000;

/** The fake gateway: HELLO, IDENTIFY/READY, heartbeats, RESUME with replay, dispatches filtered by intents. */
export class Gateway implements Dispatcher {
  readonly #lagging = new Map<string, { s: number; t: string; d: Json }[]>();
  readonly sessions = new Map<string, GatewaySession>();
  readonly received: ReceivedPayload[] = [];
  readonly connections: ConnectionRecord[] = [];
  readonly voiceRequests: VoiceRequest[] = [];
  identifyCount = 0;
  readonly #wss = new WebSocketServer({ noServer: true });
  readonly #open = new Set<GatewayConnection>();
  #world: World | null = null;
  readonly #resumeUrl: string;

  constructor(resumeUrl: string) {
    this.#resumeUrl = resumeUrl;
  }

  attach(world: World): void {
    this.#world = world;
  }

  get #w(): World {
    return this.#world as World;
  }

  /** Accepts upgrades on /gateway and /gateway/resume; false for other paths. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/gateway' && url.pathname !== '/gateway/resume') return false;
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#onConnection(ws, url));
    return true;
  }

  #onConnection(ws: WebSocket, url: URL): void {
    const compress = url.searchParams.get('compress');
    const compression: Compression = compress === 'zlib-stream' ? 'zlib-stream' : null;
    const connection = new GatewayConnection(ws, url.pathname, compression);
    const record: ConnectionRecord = {
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      openedAt: connection.openedAt,
      closedAt: null,
      closeCode: null,
      closedBy: null,
      sessionId: null,
      shard: null,
    };
    this.connections.push(record);
    this.#open.add(connection);
    ws.on('message', (data: RawData) => this.#onMessage(connection, record, data));
    ws.on('close', (code: number) => {
      connection.closedBy ??= 'client';
      Object.assign(record, { closedAt: Date.now(), closeCode: code, closedBy: connection.closedBy });
      this.#onClose(connection, code);
    });
    ws.on('error', () => undefined);
    const version = url.searchParams.get('v');
    if (version !== '10' && version !== '9') {
      connection.close(CloseCode.InvalidApiVersion, 'Invalid API version.');
      return;
    }
    if ((url.searchParams.get('encoding') ?? 'json') !== 'json') {
      connection.close(CloseCode.DecodeError, 'Only the json encoding is served by this gateway.');
      return;
    }
    connection.send({
      op: Op.Hello,
      d: { heartbeat_interval: this.#w.options.heartbeatIntervalMs, _trace: ['["gateway-fake",{"micros":0}]'] },
      s: null,
      t: null,
    });
    this.#w.changed();
  }

  #onClose(connection: GatewayConnection, code: number): void {
    this.#open.delete(connection);
    const session = connection.sessionId ? this.sessions.get(connection.sessionId) : undefined;
    if (session && session.connection === connection) {
      session.connection = null;
      session.disconnectedAt = Date.now();
      // A client closing with 1000/1001 ends its session; any other close keeps it resumable.
      if (connection.closedBy === 'client' && (code === 1000 || code === 1001)) this.sessions.delete(session.id);
    }
    this.#w.changed();
  }

  #onMessage(connection: GatewayConnection, record: ConnectionRecord, data: RawData): void {
    const now = Date.now();
    while (connection.received.length && now - (connection.received[0] as number) > SEND_WINDOW_MS) connection.received.shift();
    connection.received.push(now);
    if (connection.received.length > SEND_LIMIT) {
      connection.close(CloseCode.RateLimited, 'You are being rate limited.');
      return;
    }
    let payload: { op?: unknown; d?: unknown };
    try {
      payload = JSON.parse(data.toString());
    } catch {
      connection.close(CloseCode.DecodeError, 'Error while decoding payload.');
      return;
    }
    this.received.push({ op: Number(payload.op), d: payload.d, sessionId: connection.sessionId, at: now });
    this.#w.changed();
    const d = (payload.d ?? {}) as Json;
    switch (payload.op) {
      case Op.Heartbeat:
        connection.send({ op: Op.HeartbeatAck, d: null, s: null, t: null });
        return;
      case Op.Identify:
        this.#identify(connection, record, d);
        return;
      case Op.Resume:
        this.#resume(connection, record, d);
        return;
    }
    const session = connection.sessionId ? this.sessions.get(connection.sessionId) : undefined;
    if (!session) {
      connection.close(CloseCode.NotAuthenticated, 'Not authenticated.');
      return;
    }
    switch (payload.op) {
      case Op.PresenceUpdate:
        session.presence = d;
        return;
      case Op.VoiceStateUpdate:
        this.#voiceStateUpdate(session, d);
        return;
      case Op.RequestGuildMembers:
        this.#requestGuildMembers(session, d);
        return;
      default:
        connection.close(CloseCode.UnknownOpcode, 'Unknown opcode.');
    }
  }

  #tokenMatches(token: unknown): boolean {
    const expected = this.#w.options.token;
    return token === expected || token === `Bot ${expected}`;
  }

  #identify(connection: GatewayConnection, record: ConnectionRecord, d: Json): void {
    if (connection.sessionId) {
      connection.close(CloseCode.AlreadyAuthenticated, 'Already authenticated.');
      return;
    }
    if (!this.#tokenMatches(d.token)) {
      connection.close(CloseCode.AuthenticationFailed, 'Authentication failed.');
      return;
    }
    const intents = d.intents;
    if (typeof intents !== 'number' || !Number.isInteger(intents) || intents < 0 || (intents & ~KNOWN_INTENTS) !== 0) {
      connection.close(CloseCode.InvalidIntents, 'Invalid intent(s).');
      return;
    }
    if ((intents & PRIVILEGED_INTENTS & ~this.#w.options.privilegedIntents) !== 0) {
      connection.close(CloseCode.DisallowedIntents, 'Disallowed intent(s).');
      return;
    }
    const { store, bot, applicationId, options } = this.#w;
    const shard = parseShard(d.shard);
    if (!shard || (options.shardCount !== null && shard[1] !== options.shardCount)) {
      connection.close(CloseCode.InvalidShard, 'Invalid shard.');
      return;
    }
    const guilds = [...store.guilds.values()].filter((g) => g.members.has(bot.id) && shardOf(g.id, shard[1]) === shard[0]);
    if (guilds.length > options.maxGuildsPerShard) {
      connection.close(CloseCode.ShardingRequired, 'Sharding required.');
      return;
    }
    if (d.compress === true && connection.compression === null) connection.compression = 'identify';
    this.identifyCount++;
    const session: GatewaySession = {
      id: randomBytes(16).toString('hex'),
      intents,
      seq: 0,
      events: [],
      connection,
      disconnectedAt: null,
      identify: d,
      presence: (d.presence as Json | undefined) ?? null,
      shard,
    };
    this.sessions.set(session.id, session);
    connection.sessionId = session.id;
    Object.assign(record, { sessionId: session.id, shard });
    this.#emit(session, 'READY', {
      v: 10,
      user_settings: {},
      user: { ...this.#w.payloads.user(bot), verified: true, mfa_enabled: false, email: null },
      guilds: guilds.map((g) => ({ id: g.id, unavailable: true })),
      guild_join_requests: [],
      presences: [],
      private_channels: [],
      relationships: [],
      session_id: session.id,
      session_type: 'normal',
      resume_gateway_url: this.#resumeUrl,
      shard,
      application: { id: applicationId, flags: applicationFlags(options.privilegedIntents) },
      auth: {},
      geo_ordered_rtc_regions: ['us-east', 'us-central', 'us-south', 'us-west', 'atlanta'],
      _trace: ['["gateway-fake",{"micros":0}]'],
    });
    if (intents & Intent.Guilds) {
      for (const guild of guilds) this.#emit(session, 'GUILD_CREATE', this.guildCreatePayload(guild.id, intents));
    }
    this.#w.changed();
  }

  /** Without GUILD_PRESENCES, GUILD_CREATE lists only the bot's member and members in voice channels. */
  guildCreatePayload(guildId: string, intents: number): Json {
    const guild = this.#w.store.guild(guildId);
    const memberIds =
      intents & Intent.GuildPresences
        ? [...guild.members.keys()]
        : [this.#w.bot.id, ...[...guild.voiceStates.values()].filter((s) => s.channelId).map((s) => s.userId)];
    return this.#w.payloads.guildCreate(guild, [...new Set(memberIds)]);
  }

  #resume(connection: GatewayConnection, record: ConnectionRecord, d: Json): void {
    if (connection.sessionId) {
      connection.close(CloseCode.AlreadyAuthenticated, 'Already authenticated.');
      return;
    }
    if (!this.#tokenMatches(d.token)) {
      connection.close(CloseCode.AuthenticationFailed, 'Authentication failed.');
      return;
    }
    const session = this.sessions.get(String(d.session_id));
    const seq = Number(d.seq);
    const expired =
      session?.disconnectedAt !== null &&
      session?.disconnectedAt !== undefined &&
      Date.now() - session.disconnectedAt > this.#w.options.resumeWindowMs;
    const oldest = session?.events[0]?.s ?? 1;
    if (!session || expired || seq < oldest - 1) {
      if (session) this.sessions.delete(session.id);
      connection.send({ op: Op.InvalidSession, d: false, s: null, t: null });
      return;
    }
    if (!Number.isInteger(seq) || seq > session.seq) {
      connection.close(CloseCode.InvalidSeq, 'Invalid seq.');
      return;
    }
    if (session.connection && session.connection !== connection) {
      session.connection.close(CloseCode.SessionTimedOut, 'Session resumed elsewhere.');
    }
    session.connection = connection;
    session.disconnectedAt = null;
    connection.sessionId = session.id;
    Object.assign(record, { sessionId: session.id, shard: session.shard });
    for (const event of session.events) {
      if (event.s > seq) connection.send({ op: Op.Dispatch, d: event.d, s: event.s, t: event.t });
    }
    this.#emit(session, 'RESUMED', { _trace: ['["gateway-fake",{"micros":0}]'] });
    this.#w.changed();
  }

  /** Records the event in the session and sends it if the session has a live connection. */
  #emit(session: GatewaySession, t: string, d: Json): void {
    session.seq++;
    session.events.push({ s: session.seq, t, d });
    if (session.events.length > MAX_STORED_EVENTS) session.events.shift();
    const lagging = this.#lagging.get(session.id);
    if (lagging) lagging.push({ s: session.seq, t, d });
    else if (session.connection?.open) session.connection.send({ op: Op.Dispatch, d, s: session.seq, t });
  }

  /**
   * The session's connection lags: its dispatches wait until the returned function is called, then go in order (a
   * process slow to hear events, so another instance on the same bot sees them first).
   */
  lag(sessionId: string): () => void {
    const waiting: { s: number; t: string; d: Json }[] = [];
    this.#lagging.set(sessionId, waiting);
    return () => {
      if (this.#lagging.get(sessionId) !== waiting) return;
      this.#lagging.delete(sessionId);
      const connection = this.sessions.get(sessionId)?.connection;
      if (connection?.open) for (const { s, t, d } of waiting) connection.send({ op: Op.Dispatch, d, s, t });
    };
  }

  #live(): GatewaySession[] {
    const now = Date.now();
    for (const session of this.sessions.values()) {
      if (session.disconnectedAt !== null && now - session.disconnectedAt > this.#w.options.resumeWindowMs) {
        this.sessions.delete(session.id);
      }
    }
    return [...this.sessions.values()];
  }

  /** Each event goes to the one session whose shard holds its guild; events outside a guild (DMs) to shard 0. */
  dispatch(event: string, intent: number | null, build: (receiver: Receiver) => Json): void {
    for (const session of this.#live()) {
      if (intent !== null && !(session.intents & intent)) continue;
      const d = build({ intents: session.intents });
      const guildId = dispatchGuild(event, d);
      // A bot hears nothing of a server it is not in.
      if (guildId !== null && !this.#w.store.guilds.get(guildId)?.members.has(this.#w.bot.id)) continue;
      const [id, count] = session.shard;
      if ((guildId === null ? 0 : shardOf(guildId, count)) !== id) continue;
      this.#emit(session, event, d);
    }
  }

  #voiceStateUpdate(session: GatewaySession, d: Json): void {
    const { store, bot } = this.#w;
    const guild = store.guilds.get(String(d.guild_id));
    if (!guild?.members.has(bot.id)) return;
    const channelId = d.channel_id === null || d.channel_id === undefined ? null : String(d.channel_id);
    const channel = channelId === null ? null : guildVoiceChannel(this.#w, guild, channelId);
    if (channel === undefined) return;
    // Discord ignores a join it refuses: no VOICE_STATE_UPDATE, no VOICE_SERVER_UPDATE; the client times out.
    const refused = channel ? voiceEntryRefusal(this.#w, guild, channel, bot.id) : null;
    this.voiceRequests.push({
      guildId: guild.id,
      channelId,
      selfMute: d.self_mute === true,
      selfDeaf: d.self_deaf === true,
      refused,
      at: Date.now(),
    });
    if (refused) {
      this.#w.changed();
      return;
    }
    this.#setBotVoiceState(session, guild, channelId, { selfMute: d.self_mute === true, selfDeaf: d.self_deaf === true });
  }

  /**
   * Test control: a moderator moves the bot to another voice channel of the guild, or disconnects it (null).
   * Everyone gets the VOICE_STATE_UPDATE; the bot's session also gets a VOICE_SERVER_UPDATE for the new channel.
   */
  moveBot(guild: GuildRecord, channelId: string | null): void {
    const state = guild.voiceStates.get(this.#w.bot.id);
    const session = state?.channelId ? this.sessions.get(state.sessionId) : undefined;
    if (!state || !session) throw new Error('fake discord: the bot is not in a voice channel of this guild');
    this.#setBotVoiceState(session, guild, channelId, state);
  }

  #setBotVoiceState(session: GatewaySession, guild: GuildRecord, channelId: string | null, flags: { selfMute: boolean; selfDeaf: boolean }): void {
    const { bot, payloads } = this.#w;
    const previous = guild.voiceStates.get(bot.id);
    const state: VoiceStateRecord = {
      guildId: guild.id,
      channelId,
      userId: bot.id,
      sessionId: session.id,
      selfMute: flags.selfMute,
      selfDeaf: flags.selfDeaf,
      selfVideo: false,
      mute: false,
      deaf: false,
    };
    guild.voiceStates.set(bot.id, state);
    this.dispatch('VOICE_STATE_UPDATE', Intent.GuildVoiceStates, () => payloads.voiceState(state, true));
    // Every channel entered is a new voice session (a new token, maybe another server); staying put is not.
    if (channelId !== null && previous?.channelId !== channelId) {
      this.#emit(session, 'VOICE_SERVER_UPDATE', voiceServerUpdate(this.#w, guild.id, channelId));
    }
    this.#w.changed();
  }

  #requestGuildMembers(session: GatewaySession, d: Json): void {
    const { store, payloads } = this.#w;
    const guildIds = Array.isArray(d.guild_id) ? d.guild_id.map(String) : [String(d.guild_id)];
    for (const guildId of guildIds) {
      const guild = store.guilds.get(guildId);
      if (!guild) continue;
      const userIds = Array.isArray(d.user_ids) ? d.user_ids.map(String) : typeof d.user_ids === 'string' ? [d.user_ids] : null;
      const query = typeof d.query === 'string' ? d.query.toLowerCase() : '';
      const limit = typeof d.limit === 'number' && d.limit > 0 ? d.limit : Number.POSITIVE_INFINITY;
      const mayList = (session.intents & Intent.GuildMembers) !== 0;
      const members = userIds
        ? userIds.flatMap((id) => (guild.members.has(id) ? [guild.members.get(id)!] : []))
        : mayList
          ? [...guild.members.values()].filter((m) => store.user(m.userId).username.toLowerCase().startsWith(query)).slice(0, limit)
          : [];
      this.#emit(session, 'GUILD_MEMBERS_CHUNK', {
        guild_id: guildId,
        members: members.map((m) => payloads.member(m, true)),
        chunk_index: 0,
        chunk_count: 1,
        ...(userIds ? { not_found: userIds.filter((id) => !guild.members.has(id)) } : {}),
        ...(d.nonce !== undefined ? { nonce: d.nonce } : {}),
      });
    }
  }

  /** Test control: close live connections with a code (resumable unless 1000) or cut them without a close frame. */
  drop(options: { code?: number; abrupt?: boolean } = {}): void {
    for (const connection of this.#open) {
      if (options.abrupt) connection.terminate();
      else connection.close(options.code ?? CloseCode.UnknownError, 'Dropped by test');
    }
  }

  /** Test control: op 9. Not resumable also forgets the sessions, so the client must IDENTIFY again. */
  invalidateSessions(resumable: boolean): void {
    for (const connection of this.#open) {
      if (!connection.sessionId) continue;
      if (!resumable) this.sessions.delete(connection.sessionId);
      connection.sessionId = null;
      connection.send({ op: Op.InvalidSession, d: resumable, s: null, t: null });
    }
  }

  /** Test control: op 7, asking clients to reconnect and resume. */
  requestReconnect(): void {
    for (const connection of this.#open) connection.send({ op: Op.Reconnect, d: null, s: null, t: null });
  }

  /** Test control: ask every client for an immediate heartbeat (op 1). */
  requestHeartbeat(): void {
    for (const connection of this.#open) {
      const session = connection.sessionId ? this.sessions.get(connection.sessionId) : undefined;
      connection.send({ op: Op.Heartbeat, d: session?.seq ?? null, s: null, t: null });
    }
  }

  get openConnections(): number {
    return this.#open.size;
  }

  close(): void {
    for (const connection of this.#open) connection.terminate();
    this.#wss.close();
  }
}

/** IDENTIFY's `shard`: absent means [0, 1]; otherwise [id, count] with 0 <= id < count, or null when invalid. */
function parseShard(value: unknown): [number, number] | null {
  if (value === undefined) return [0, 1];
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [id, count] = value as unknown[];
  if (!Number.isInteger(id) || !Number.isInteger(count)) return null;
  return (id as number) >= 0 && (id as number) < (count as number) ? [id as number, count as number] : null;
}
