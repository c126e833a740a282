import { DaveCall } from './dave/dave-call.ts';
import { MediaLog } from './media-log.ts';
import type { TransportMode } from './protocol.ts';
import type { VoiceSession } from './voice-session.ts';

export interface VoiceServerConfig {
  guildId: string;
  channelId: string;
  userId: string;
  sessionId: string;
  token: string;
  heartbeatIntervalMs: number;
  modes: TransportMode[];
}

/** A message the client sent on the voice websocket (binary DAVE messages carry their payload as `d`). */
export interface ReceivedPayload {
  op: number;
  d: unknown;
  binary: boolean;
  sessionId: string | null;
  at: number;
}

export interface SpeakingEvent {
  userId: string;
  ssrc: number;
  speaking: number;
  delay: number;
  at: number;
}

export interface CloseRecord {
  code: number;
  reason: string;
  by: 'server' | 'client';
  sessionId: string | null;
  at: number;
}

export class VoiceServerState {
  readonly config: VoiceServerConfig;
  readonly media = new MediaLog();
  readonly dave: DaveCall;
  readonly sessions = new Map<string, VoiceSession>();
  readonly sessionsBySsrc = new Map<number, VoiceSession>();
  /** Fake users currently in the voice channel. */
  readonly users: string[];
  readonly payloads: ReceivedPayload[] = [];
  readonly speaking: SpeakingEvent[] = [];
  readonly closes: CloseRecord[] = [];
  udpPort = 0;

  constructor(config: VoiceServerConfig, users: string[]) {
    this.config = config;
    this.users = [...users];
    this.dave = new DaveCall(config.channelId, users);
  }

  addSession(session: VoiceSession): void {
    const previous = this.sessions.get(session.sessionId);
    if (previous) this.sessionsBySsrc.delete(previous.ssrc);
    this.sessions.set(session.sessionId, session);
    this.sessionsBySsrc.set(session.ssrc, session);
  }

  dropSession(session: VoiceSession): void {
    if (this.sessions.get(session.sessionId) === session) this.sessions.delete(session.sessionId);
    this.sessionsBySsrc.delete(session.ssrc);
  }
}
