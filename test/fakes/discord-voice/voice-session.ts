import type { WebSocket } from 'ws';
import { VoiceOp, type TransportMode } from './protocol.ts';

/** The websocket currently serving a session, with the server-side ways to end it. */
export interface SessionTransport {
  readonly socket: WebSocket;
  close(code: number, reason: string): void;
  terminate(reason: string): void;
}

/** What a session sends that must survive a dropped websocket: v8 numbers it and replays it on resume. */
interface Buffered {
  seq: number;
  frame: string | Buffer;
}

const SEQ_MODULO = 0x10000;
const BUFFER_LIMIT = 4096;

/** One identified voice session (one bot user in the channel); it outlives websockets through Resume. */
export class VoiceSession {
  readonly sessionId: string;
  readonly userId: string;
  readonly ssrc: number;
  mode: TransportMode | null = null;
  secretKey: Buffer | null = null;
  /** The address the client named in Select Protocol, and the one its IP discovery came from. */
  selectedAddress: { address: string; port: number } | null = null;
  discoveredFrom: { address: string; port: number } | null = null;
  connection: SessionTransport | null = null;
  /** Users whose SSRC this session has been told with a Speaking op. */
  readonly announcedSpeakers = new Set<string>();
  /** Counter of the nonces of the audio the server forwards to this client. */
  outboundNonce = 0;
  private seq = 0;
  private buffered: Buffered[] = [];

  constructor(sessionId: string, userId: string, ssrc: number) {
    this.sessionId = sessionId;
    this.userId = userId;
    this.ssrc = ssrc;
  }

  /** A numbered JSON message: buffered, delivered now if the socket is open, else on resume. */
  send(op: number, d: unknown): void {
    const seq = this.nextSeq();
    this.deliver(seq, JSON.stringify({ op, d, seq }));
  }

  /** Opcode 11 for clients already in the call or joining it, each followed by its flags and platform. */
  clientsConnected(userIds: string[]): void {
    if (userIds.length === 0) return;
    this.send(VoiceOp.ClientsConnect, { user_ids: userIds });
    for (const userId of userIds) {
      this.send(VoiceOp.ClientFlags, { user_id: userId, flags: 0 });
      this.send(VoiceOp.ClientPlatform, { user_id: userId, platform: 0 });
    }
  }

  /** A binary DAVE message: 2-byte sequence, 1-byte opcode, payload. */
  sendBinary(op: number, payload: Buffer): void {
    const seq = this.nextSeq();
    const header = Buffer.alloc(3);
    header.writeUInt16BE(seq, 0);
    header.writeUInt8(op, 2);
    this.deliver(seq, Buffer.concat([header, payload]));
  }

  /** Hello, Ready, Resumed and heartbeat ACKs carry no sequence number and are never replayed. */
  sendUnnumbered(op: number, d: unknown): void {
    this.sendOpen(JSON.stringify({ op, d }));
  }

  /**
   * Re-sends what the client has not acknowledged. False when the buffer no longer reaches back to `seqAck`,
   * in which case the resume must fail.
   */
  replayAfter(seqAck: number): boolean {
    let start = 0;
    if (seqAck >= 0 && this.buffered.length > 0) {
      const index = this.buffered.findLastIndex((entry) => entry.seq === seqAck);
      if (index === -1) return false;
      start = index + 1;
    }
    for (const entry of this.buffered.slice(start)) this.sendOpen(entry.frame);
    return true;
  }

  private nextSeq(): number {
    this.seq = (this.seq + 1) % SEQ_MODULO;
    return this.seq;
  }

  private deliver(seq: number, frame: string | Buffer): void {
    this.buffered.push({ seq, frame });
    if (this.buffered.length > BUFFER_LIMIT) this.buffered.shift();
    this.sendOpen(frame);
  }

  private sendOpen(frame: string | Buffer): void {
    const socket = this.connection?.socket;
    if (socket?.readyState === 1) socket.send(frame);
  }
}
