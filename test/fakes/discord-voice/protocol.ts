// Voice gateway v8 opcodes and close codes, as documented for Discord voice connections and the DAVE protocol.

export const VoiceOp = {
  Identify: 0,
  SelectProtocol: 1,
  Ready: 2,
  Heartbeat: 3,
  SessionDescription: 4,
  Speaking: 5,
  HeartbeatAck: 6,
  Resume: 7,
  Hello: 8,
  Resumed: 9,
  ClientsConnect: 11,
  ClientDisconnect: 13,
  /** `{ user_id, flags }` for each client that connects (undocumented for bots; libraries ignore it). */
  ClientFlags: 18,
  /** `{ user_id, platform }`: 0 desktop, 1 mobile. */
  ClientPlatform: 20,
  DavePrepareTransition: 21,
  DaveExecuteTransition: 22,
  DaveTransitionReady: 23,
  DavePrepareEpoch: 24,
  DaveMlsExternalSender: 25,
  DaveMlsKeyPackage: 26,
  DaveMlsProposals: 27,
  DaveMlsCommitWelcome: 28,
  DaveMlsAnnounceCommitTransition: 29,
  DaveMlsWelcome: 30,
  DaveMlsInvalidCommitWelcome: 31,
} as const;

export const VoiceCloseCode = {
  UnknownOpcode: 4001,
  FailedToDecode: 4002,
  NotAuthenticated: 4003,
  AuthenticationFailed: 4004,
  AlreadyAuthenticated: 4005,
  SessionNoLongerValid: 4006,
  SessionTimeout: 4009,
  ServerNotFound: 4011,
  UnknownProtocol: 4012,
  Disconnected: 4014,
  VoiceServerCrashed: 4015,
  UnknownEncryptionMode: 4016,
  DaveProtocolRequired: 4017,
  BadRequest: 4020,
} as const;

export const TRANSPORT_MODES = ['aead_aes256_gcm_rtpsize', 'aead_xchacha20_poly1305_rtpsize'] as const;
export type TransportMode = (typeof TRANSPORT_MODES)[number];

export const isTransportMode = (value: unknown): value is TransportMode => (TRANSPORT_MODES as readonly unknown[]).includes(value);

/** The only DAVE protocol version that exists (and that @snazzah/davey implements). */
export const DAVE_PROTOCOL_VERSION = 1;

export const OPUS_PAYLOAD_TYPE = 0x78;
export const OPUS_SILENCE_FRAME = Buffer.from([0xf8, 0xff, 0xfe]);
/** Timestamp units per 20 ms Opus frame: the RTP clock for Opus is 48 kHz. */
export const SAMPLES_PER_FRAME = 960;
