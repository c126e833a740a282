import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { isOpusRtp, opusFromPlaintext, parseRtpHeader } from './rtp.ts';
import type { VoiceServerState } from './state.ts';
import { decryptTransport } from './transport-crypto.ts';

const DISCOVERY_LENGTH = 74;
const DISCOVERY_REQUEST = 1;
const DISCOVERY_RESPONSE = 2;
const KEEPALIVE_LENGTH = 8;
const DAVE_MAGIC_MARKER = 0xfafa;

/** The UDP media endpoint: answers IP discovery and turns voice datagrams back into the sender's Opus frames. */
export class VoiceUdpEndpoint {
  private readonly socket: Socket = createSocket('udp4');
  private readonly state: VoiceServerState;

  constructor(state: VoiceServerState) {
    this.state = state;
    this.socket.on('message', (message, remote) => this.onDatagram(message, remote));
  }

  bind(host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.socket.once('error', reject);
      this.socket.bind(0, host, () => resolve((this.socket.address() as AddressInfo).port));
    });
  }

  send(packet: Buffer, to: { address: string; port: number }): void {
    this.socket.send(packet, to.port, to.address);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  private onDatagram(message: Buffer, remote: RemoteInfo): void {
    const { media } = this.state;
    if (message.length === DISCOVERY_LENGTH && message.readUInt16BE(0) === DISCOVERY_REQUEST) {
      return this.answerDiscovery(message, remote);
    }
    if (message.length === KEEPALIVE_LENGTH) {
      media.counters.keepalives++;
      return;
    }
    const header = parseRtpHeader(message);
    const session = header && isOpusRtp(header) ? this.state.sessionsBySsrc.get(header.ssrc) : undefined;
    if (!header || !session?.mode || !session.secretKey) {
      media.counters.unroutable++;
      return;
    }
    const arrivedAt = performance.now();
    const stats = media.statsFor(header.ssrc, session.userId);
    let opus: Buffer | null;
    try {
      opus = opusFromPlaintext(header, decryptTransport(session.mode, session.secretKey, message, header));
    } catch {
      stats.transportFailures++;
      return;
    }
    if (!opus) {
      stats.transportFailures++;
      return;
    }
    media.noteFrame(stats, header.sequence, header.timestamp);
    if (media.isSilence(opus)) {
      stats.silenceFrames++;
      return;
    }
    const e2ee = opus.length >= 2 && opus.readUInt16BE(opus.length - 2) === DAVE_MAGIC_MARKER;
    if (e2ee) {
      try {
        opus = this.state.dave.decrypt(session.userId, opus);
      } catch {
        stats.e2eeFailures++;
        return;
      }
    }
    media.store(stats, {
      ssrc: header.ssrc,
      userId: session.userId,
      sequence: header.sequence,
      timestamp: header.timestamp,
      marker: header.marker,
      opus,
      e2ee,
      arrivedAt,
    });
  }

  /** Type 2 response: same SSRC, the sender's address as seen here (NUL-padded to 64 bytes), then its port. */
  private answerDiscovery(request: Buffer, remote: RemoteInfo): void {
    const ssrc = request.readUInt32BE(4);
    const session = this.state.sessionsBySsrc.get(ssrc);
    if (request.readUInt16BE(2) !== 70 || !session) {
      this.state.media.counters.unroutable++;
      return;
    }
    this.state.media.counters.discoveries++;
    session.discoveredFrom = { address: remote.address, port: remote.port };
    const response = Buffer.alloc(DISCOVERY_LENGTH);
    response.writeUInt16BE(DISCOVERY_RESPONSE, 0);
    response.writeUInt16BE(70, 2);
    response.writeUInt32BE(ssrc, 4);
    response.write(remote.address, 8, 'utf8');
    response.writeUInt16BE(remote.port, DISCOVERY_LENGTH - 2);
    this.socket.send(response, remote.port, remote.address);
  }
}
