import { randomInt } from 'node:crypto';
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

/** A fake user's outgoing RTP stream: Discord gives each client in the call an SSRC of its own. */
export interface SpeakerStream {
  userId: string;
  ssrc: number;
  sequence: number;
  /** RTP timestamp of the next frame: a 48 kHz sample clock that keeps running while the user is silent. */
  timestamp: number;
  /** performance.now() of the user's last frame slot, to advance the clock over silence between utterances. */
  clockAt: number;
  /** Whether an utterance is being sent (one microphone per user). */
  busy: boolean;
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
  readonly speakers = new Map<string, SpeakerStream>();
  /** Server-deafened (by a moderator): Discord forwards no audio to the bot. Self-deafening changes nothing. */
  botServerDeaf = false;
  udpPort = 0;

  constructor(config: VoiceServerConfig, users: string[]) {
    this.config = config;
    this.users = [...users];
    this.dave = new DaveCall(config.channelId, users);
    for (const userId of users) this.addSpeaker(userId);
  }

  /** A client entering the call gets a fresh SSRC, distinct from every other one in the call. */
  addSpeaker(userId: string): void {
    this.speakers.set(userId, {
      userId,
      ssrc: this.freeSsrc(),
      sequence: randomInt(0, 0x10000),
      timestamp: randomInt(0, 2 ** 32 - 1),
      clockAt: performance.now(),
      busy: false,
    });
  }

  freeSsrc(): number {
    let ssrc: number;
    do ssrc = randomInt(1, 2 ** 32 - 1);
    while (this.sessionsBySsrc.has(ssrc) || [...this.speakers.values()].some((speaker) => speaker.ssrc === ssrc));
    return ssrc;
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
