import { randomBytes } from 'node:crypto';
import type { RawData, WebSocket } from 'ws';
import { DAVE_PROTOCOL_VERSION, VoiceCloseCode, VoiceOp, isTransportMode } from './protocol.ts';
import type { VoiceServerState } from './state.ts';
import { VoiceSession, type SessionTransport } from './voice-session.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Close codes after which Discord would not accept a Resume of the session. */
const NON_RESUMABLE = new Set<number>([
  VoiceCloseCode.AuthenticationFailed,
  VoiceCloseCode.SessionNoLongerValid,
  VoiceCloseCode.SessionTimeout,
  VoiceCloseCode.Disconnected,
  VoiceCloseCode.DaveProtocolRequired,
]);

/** One voice websocket: Hello, then Identify or Resume, then the session's traffic until it closes. */
export class GatewayConnection implements SessionTransport {
  readonly socket: WebSocket;
  session: VoiceSession | null = null;
  private readonly state: VoiceServerState;
  private heartbeatDeadline: NodeJS.Timeout | undefined;
  private closing = false;

  constructor(socket: WebSocket, state: VoiceServerState) {
    this.socket = socket;
    this.state = state;
    socket.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    socket.on('close', (code, reason) => this.onClose(code, reason.toString()));
    socket.on('error', () => undefined);
    this.sendRaw({ op: VoiceOp.Hello, d: { heartbeat_interval: state.config.heartbeatIntervalMs } });
    this.armHeartbeatDeadline();
  }

  /** Closes from the server side, recording why; a non-resumable code also ends the session. */
  close(code: number, reason: string): void {
    if (this.closing) return;
    this.closing = true;
    this.record(code, reason, 'server');
    if (this.session && NON_RESUMABLE.has(code)) this.state.dropSession(this.session);
    this.socket.close(code, reason);
  }

  /** Drops the TCP connection without a close frame, as a crashed voice server or a network cut would. */
  terminate(reason: string): void {
    this.closing = true;
    this.record(1006, reason, 'server');
    this.socket.terminate();
  }

  private onClose(code: number, reason: string): void {
    clearTimeout(this.heartbeatDeadline);
    if (!this.closing) this.record(code, reason, 'client');
    if (this.session?.connection === this) this.session.connection = null;
  }

  private record(code: number, reason: string, by: 'server' | 'client'): void {
    this.state.closes.push({ code, reason, by, sessionId: this.session?.sessionId ?? null, at: performance.now() });
  }

  private armHeartbeatDeadline(): void {
    clearTimeout(this.heartbeatDeadline);
    // Discord times a session out when heartbeats stop; allow one missed interval plus transit slack.
    const limit = this.state.config.heartbeatIntervalMs * 2 + 1000;
    this.heartbeatDeadline = setTimeout(() => this.close(VoiceCloseCode.SessionTimeout, 'Session timeout'), limit);
  }

  private sendRaw(payload: Json): void {
    if (this.socket.readyState === 1) this.socket.send(JSON.stringify(payload));
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (this.closing) return;
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    if (isBinary) return this.onBinary(bytes);
    let payload: unknown;
    try {
      payload = JSON.parse(bytes.toString('utf8'));
    } catch {
      return this.close(VoiceCloseCode.FailedToDecode, 'Failed to decode payload');
    }
    if (!isObject(payload) || typeof payload.op !== 'number') {
      return this.close(VoiceCloseCode.FailedToDecode, 'Failed to decode payload');
    }
    const { op, d } = payload;
    this.state.payloads.push({ op, d, binary: false, sessionId: this.session?.sessionId ?? null, at: performance.now() });
    if (op === VoiceOp.Heartbeat) return this.onHeartbeat(d);
    if (op === VoiceOp.Identify) return this.onIdentify(d);
    if (op === VoiceOp.Resume) return this.onResume(d);
    const session = this.session;
    if (!session) return this.close(VoiceCloseCode.NotAuthenticated, 'Not authenticated');
    if (!isObject(d)) return this.close(VoiceCloseCode.FailedToDecode, 'Failed to decode payload');
    switch (op) {
      case VoiceOp.SelectProtocol:
        return this.onSelectProtocol(session, d);
      case VoiceOp.Speaking:
        return this.onSpeaking(session, d);
      case VoiceOp.DaveTransitionReady:
        return this.state.dave.onTransitionReady(Number(d.transition_id));
      case VoiceOp.DaveMlsInvalidCommitWelcome:
        return this.state.dave.onInvalidCommitWelcome(Number(d.transition_id));
      default:
        return this.close(VoiceCloseCode.UnknownOpcode, 'Unknown opcode');
    }
  }

  /** Client binary messages are 1 opcode byte and a payload (only the server adds sequence numbers). */
  private onBinary(bytes: Buffer): void {
    const session = this.session;
    if (!session) return this.close(VoiceCloseCode.NotAuthenticated, 'Not authenticated');
    if (bytes.length < 1) return this.close(VoiceCloseCode.FailedToDecode, 'Failed to decode payload');
    const op = bytes[0]!;
    const payload = bytes.subarray(1);
    this.state.payloads.push({ op, d: payload, binary: true, sessionId: session.sessionId, at: performance.now() });
    if (op === VoiceOp.DaveMlsKeyPackage) return this.state.dave.onKeyPackage(payload);
    if (op === VoiceOp.DaveMlsCommitWelcome) return this.state.dave.onCommitWelcome(payload);
    this.close(VoiceCloseCode.UnknownOpcode, 'Unknown opcode');
  }

  private onHeartbeat(d: unknown): void {
    if (!isObject(d) || typeof d.t !== 'number') {
      return this.close(VoiceCloseCode.FailedToDecode, 'v8 heartbeats carry { t, seq_ack }');
    }
    this.armHeartbeatDeadline();
    this.sendRaw({ op: VoiceOp.HeartbeatAck, d: { t: d.t } });
  }

  private onIdentify(d: unknown): void {
    const { config } = this.state;
    if (this.session) return this.close(VoiceCloseCode.AlreadyAuthenticated, 'Already authenticated');
    if (!isObject(d)) return this.close(VoiceCloseCode.FailedToDecode, 'Failed to decode payload');
    if (d.server_id !== config.guildId) return this.close(VoiceCloseCode.ServerNotFound, 'Unknown server');
    if (d.token !== config.token || d.user_id !== config.userId || d.session_id !== config.sessionId) {
      return this.close(VoiceCloseCode.AuthenticationFailed, 'Authentication failed');
    }
    const maxDave = typeof d.max_dave_protocol_version === 'number' ? d.max_dave_protocol_version : 0;
    if (maxDave < DAVE_PROTOCOL_VERSION) {
      return this.close(VoiceCloseCode.DaveProtocolRequired, 'E2EE/DAVE protocol required');
    }
    const previous = this.state.sessions.get(config.sessionId);
    previous?.connection?.close(VoiceCloseCode.SessionNoLongerValid, 'Replaced by a new Identify');
    const session = new VoiceSession(config.sessionId, config.userId, this.state.freeSsrc());
    session.connection = this;
    this.session = session;
    this.state.addSession(session);
    session.sendUnnumbered(VoiceOp.Ready, { ssrc: session.ssrc, ip: '127.0.0.1', port: this.state.udpPort, modes: config.modes });
    session.clientsConnected([...this.state.users]);
  }

  private onResume(d: unknown): void {
    const { config } = this.state;
    if (this.session) return this.close(VoiceCloseCode.AlreadyAuthenticated, 'Already authenticated');
    if (!isObject(d)) return this.close(VoiceCloseCode.FailedToDecode, 'Failed to decode payload');
    const session = typeof d.session_id === 'string' ? this.state.sessions.get(d.session_id) : undefined;
    if (!session || d.server_id !== config.guildId) {
      return this.close(VoiceCloseCode.SessionNoLongerValid, 'Session is no longer valid');
    }
    if (d.token !== config.token) return this.close(VoiceCloseCode.AuthenticationFailed, 'Authentication failed');
    session.connection?.terminate('superseded by a Resume');
    this.session = session;
    session.connection = this;
    const seqAck = typeof d.seq_ack === 'number' ? d.seq_ack : -1;
    session.sendUnnumbered(VoiceOp.Resumed, null);
    if (!session.replayAfter(seqAck)) this.close(VoiceCloseCode.SessionNoLongerValid, 'Missed messages are gone');
  }

  private onSelectProtocol(session: VoiceSession, d: Json): void {
    const data = isObject(d.data) ? d.data : null;
    if (d.protocol !== 'udp' || !data) return this.close(VoiceCloseCode.UnknownProtocol, 'Unknown protocol');
    if (!isTransportMode(data.mode) || !this.state.config.modes.includes(data.mode)) {
      return this.close(VoiceCloseCode.UnknownEncryptionMode, 'Unknown encryption mode');
    }
    if (typeof data.address !== 'string' || typeof data.port !== 'number') {
      return this.close(VoiceCloseCode.BadRequest, 'Select Protocol needs address and port');
    }
    session.selectedAddress = { address: data.address, port: data.port };
    session.mode = data.mode;
    session.secretKey = randomBytes(32);
    session.send(VoiceOp.SessionDescription, {
      mode: session.mode,
      secret_key: [...session.secretKey],
      dave_protocol_version: DAVE_PROTOCOL_VERSION,
    });
    this.state.dave.start(session);
  }

  private onSpeaking(session: VoiceSession, d: Json): void {
    this.state.speaking.push({
      userId: session.userId,
      ssrc: Number(d.ssrc),
      speaking: Number(d.speaking),
      delay: Number(d.delay),
      at: performance.now(),
    });
  }
}
