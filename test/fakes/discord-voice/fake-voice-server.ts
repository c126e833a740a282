import { randomBytes, randomInt } from 'node:crypto';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import type { DaveEvent } from './dave/dave-call.ts';
import { VoiceGateway } from './gateway.ts';
import type { ReceivedPacket, SsrcStats, UdpCounters } from './media-log.ts';
import { TRANSPORT_MODES, VoiceOp, type TransportMode } from './protocol.ts';
import { createSelfSignedCertificate } from './self-signed-certificate.ts';
import { VoiceServerState, type CloseRecord, type ReceivedPayload, type SpeakingEvent } from './state.ts';
import { VoiceUdpEndpoint } from './udp.ts';
import { speak, type SpeakOptions, type SpokenAudio } from './user-speech.ts';

export interface FakeVoiceServerOptions {
  /** Identify must carry exactly these; each defaults to a fresh random value. */
  guildId?: string;
  channelId?: string;
  userId?: string;
  sessionId?: string;
  token?: string;
  /** Sent in Hello. Default 41250 ms, as Discord does. */
  heartbeatIntervalMs?: number;
  /** Offered in Ready, in this order of preference. Default: AES-256-GCM, then XChaCha20-Poly1305. */
  modes?: TransportMode[];
  /** Fake users already in the channel: announced with ClientsConnect and made members of the DAVE group. */
  users?: string[];
  /**
   * Add the server's self-signed certificate to this process's default CA list (tls.setDefaultCACertificates),
   * so @discordjs/voice's `wss://` connection verifies it like a real one. Default true.
   */
  trustCertificate?: boolean;
}

/** The d of a VOICE_STATE_UPDATE dispatch for the bot joining the channel. */
export interface VoiceStateUpdateData {
  guild_id: string;
  channel_id: string;
  user_id: string;
  session_id: string;
  deaf: boolean;
  mute: boolean;
  self_deaf: boolean;
  self_mute: boolean;
  self_video: boolean;
  suppress: boolean;
  request_to_speak_timestamp: null;
}

/** The d of a VOICE_SERVER_UPDATE dispatch: endpoint is host:port without a scheme, as Discord sends it. */
export interface VoiceServerUpdateData {
  token: string;
  guild_id: string;
  endpoint: string;
}

export interface VoiceSessionInfo {
  sessionId: string;
  userId: string;
  ssrc: number;
  mode: TransportMode | null;
  /** The UDP address the client named in Select Protocol, and the one its IP discovery request came from. */
  selectedAddress: { address: string; port: number } | null;
  discoveredFrom: { address: string; port: number } | null;
  /** Whether a websocket currently serves the session (false between a drop and the Resume). */
  connected: boolean;
}

export interface FakeVoiceServer {
  /** host:port of the voice websocket (TLS), to put in VOICE_SERVER_UPDATE. */
  readonly endpoint: string;
  readonly guildId: string;
  readonly channelId: string;
  readonly userId: string;
  readonly sessionId: string;
  readonly token: string;
  readonly udpPort: number;
  readonly certificatePem: string;
  /** Opus frames received, in arrival order, decrypted (silence frames are only counted, in stats()). */
  readonly received: readonly ReceivedPacket[];
  readonly speaking: readonly SpeakingEvent[];
  /** Every message clients sent on the voice websocket. */
  readonly payloads: readonly ReceivedPayload[];
  readonly closes: readonly CloseRecord[];
  readonly daveEvents: readonly DaveEvent[];
  readonly udpCounters: Readonly<UdpCounters>;
  stats(): SsrcStats[];
  waitForPackets(count: number, timeoutMs?: number): Promise<ReceivedPacket[]>;
  voiceStateUpdate(): VoiceStateUpdateData;
  voiceServerUpdate(): VoiceServerUpdateData;
  session(): VoiceSessionInfo | null;
  /** Fake users that share the DAVE group with the bot right now. */
  daveGroupMembers(): string[];
  /** The voice privacy code of the DAVE group as the fake users see it, or null without a group. */
  daveVoicePrivacyCode(): string | null;
  /** Ends the bot's voice websocket: with a close frame carrying `code` (4015 invites a Resume), or abruptly. */
  dropConnection(code?: number): void;
  /** A fake user joins the channel: ClientsConnect, then DAVE proposals for the bot to commit. */
  connectUser(userId: string): void;
  /** A fake user leaves: ClientDisconnect, then a DAVE Remove proposal. */
  disconnectUser(userId: string): void;
  /**
   * A fake user says `pcm` (48 kHz mono s16le) into the call; resolves after its trailing silence frames. Several
   * users may speak at once; one user says one thing at a time.
   */
  speak(userId: string, pcm: Int16Array, options?: SpeakOptions): Promise<SpokenAudio>;
  /** The SSRC Discord gave a fake user's client in this call. */
  ssrcOf(userId: string): number;
  /**
   * A moderator server-deafens the bot (or lifts it): Discord then forwards it no audio. Self-deafening, which
   * the bot asks for itself, is only shown to others: audio keeps arriving, as it does on Discord.
   */
  serverDeafenBot(deaf: boolean): void;
  close(): Promise<void>;
}

const DISCORD_EPOCH = 1_420_070_400_000n;

export function snowflake(): string {
  return (((BigInt(Date.now()) - DISCORD_EPOCH) << 22n) | BigInt(randomInt(0, 1 << 22))).toString();
}

const HOST = '127.0.0.1';

export async function startFakeVoiceServer(options: FakeVoiceServerOptions = {}): Promise<FakeVoiceServer> {
  const state = new VoiceServerState(
    {
      guildId: options.guildId ?? snowflake(),
      channelId: options.channelId ?? snowflake(),
      userId: options.userId ?? snowflake(),
      sessionId: options.sessionId ?? randomBytes(16).toString('hex'),
      token: options.token ?? randomBytes(8).toString('hex'),
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
      modes: options.modes ?? [...TRANSPORT_MODES],
    },
    options.users ?? [],
  );
  const certificate = createSelfSignedCertificate([HOST, 'localhost']);
  if (options.trustCertificate ?? true) {
    setDefaultCACertificates([...getCACertificates('default'), certificate.certPem]);
  }
  const udp = new VoiceUdpEndpoint(state);
  state.udpPort = await udp.bind(HOST);
  const gateway = new VoiceGateway(state, certificate);
  const port = await gateway.listen(HOST);
  const { config } = state;
  const liveSession = () => state.sessions.get(config.sessionId) ?? null;

  return {
    endpoint: `${HOST}:${port}`,
    guildId: config.guildId,
    channelId: config.channelId,
    userId: config.userId,
    sessionId: config.sessionId,
    token: config.token,
    udpPort: state.udpPort,
    certificatePem: certificate.certPem,
    received: state.media.received,
    speaking: state.speaking,
    payloads: state.payloads,
    closes: state.closes,
    daveEvents: state.dave.events,
    udpCounters: state.media.counters,
    stats: () => state.media.stats(),
    waitForPackets: (count, timeoutMs = 10_000) => state.media.waitForPackets(count, timeoutMs),
    voiceStateUpdate: () => ({
      guild_id: config.guildId,
      channel_id: config.channelId,
      user_id: config.userId,
      session_id: config.sessionId,
      deaf: state.botServerDeaf,
      mute: false,
      self_deaf: true,
      self_mute: false,
      self_video: false,
      suppress: false,
      request_to_speak_timestamp: null,
    }),
    voiceServerUpdate: () => ({ token: config.token, guild_id: config.guildId, endpoint: `${HOST}:${port}` }),
    session: () => {
      const session = liveSession();
      if (!session) return null;
      const { sessionId, userId, ssrc, mode, selectedAddress, discoveredFrom } = session;
      return { sessionId, userId, ssrc, mode, selectedAddress, discoveredFrom, connected: session.connection !== null };
    },
    daveGroupMembers: () => state.dave.groupMembers,
    daveVoicePrivacyCode: () => state.dave.voicePrivacyCode,
    dropConnection: (code) => {
      const connection = liveSession()?.connection;
      if (!connection) throw new Error('no voice websocket to drop');
      if (code === undefined) connection.terminate('dropped by the test');
      else connection.close(code, 'dropped by the test');
    },
    connectUser: (userId) => {
      if (state.users.includes(userId)) throw new Error(`${userId} is already in the channel`);
      state.users.push(userId);
      state.addSpeaker(userId);
      liveSession()?.clientsConnected([userId]);
      state.dave.memberJoined(userId);
    },
    disconnectUser: (userId) => {
      if (!state.users.includes(userId)) throw new Error(`${userId} is not in the channel`);
      state.users.splice(state.users.indexOf(userId), 1);
      state.speakers.delete(userId);
      liveSession()?.send(VoiceOp.ClientDisconnect, { user_id: userId });
      state.dave.memberLeft(userId);
    },
    speak: (userId, pcm, speakOptions) => speak(state, udp, userId, pcm, speakOptions),
    ssrcOf: (userId) => {
      const speaker = state.speakers.get(userId);
      if (!speaker) throw new Error(`${userId} is not in the channel`);
      return speaker.ssrc;
    },
    serverDeafenBot: (deaf) => {
      state.botServerDeaf = deaf;
    },
    close: async () => {
      await gateway.close();
      await udp.close();
    },
  };
}
