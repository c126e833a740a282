import { OPUS_SILENCE_FRAME } from './protocol.ts';

export interface ReceivedPacket {
  ssrc: number;
  userId: string;
  sequence: number;
  timestamp: number;
  marker: boolean;
  /** The Opus frame as the client encoded it: transport encryption and (for DAVE frames) E2EE removed. */
  opus: Buffer;
  /** True when the frame arrived end-to-end encrypted (DAVE) and a fake call member decrypted it. */
  e2ee: boolean;
  /** performance.now() when the datagram arrived. */
  arrivedAt: number;
}

export interface SsrcStats {
  ssrc: number;
  userId: string;
  /** Opus frames stored in `received` (silence frames excluded). */
  packets: number;
  silenceFrames: number;
  /** Datagrams whose transport tag did not verify, or that were too short to hold tag and nonce. */
  transportFailures: number;
  /** DAVE frames no call member could decrypt. */
  e2eeFailures: number;
  /** Sequence steps other than +1 between consecutive datagrams (silence included). */
  sequenceGaps: number;
  lastSequence: number | null;
  lastTimestamp: number | null;
}

export interface UdpCounters {
  discoveries: number;
  keepalives: number;
  /** Datagrams that were neither discovery, keepalive nor Opus RTP for a session with a key. */
  unroutable: number;
}

interface Waiter {
  count: number;
  resolve: (packets: ReceivedPacket[]) => void;
}

export class MediaLog {
  readonly received: ReceivedPacket[] = [];
  readonly counters: UdpCounters = { discoveries: 0, keepalives: 0, unroutable: 0 };
  private readonly bySsrc = new Map<number, SsrcStats>();
  private waiters: Waiter[] = [];

  statsFor(ssrc: number, userId: string): SsrcStats {
    let stats = this.bySsrc.get(ssrc);
    if (!stats) {
      stats = {
        ssrc,
        userId,
        packets: 0,
        silenceFrames: 0,
        transportFailures: 0,
        e2eeFailures: 0,
        sequenceGaps: 0,
        lastSequence: null,
        lastTimestamp: null,
      };
      this.bySsrc.set(ssrc, stats);
    }
    return stats;
  }

  stats(): SsrcStats[] {
    return [...this.bySsrc.values()].map((stats) => ({ ...stats }));
  }

  /** Every decrypted datagram passes here, silence included, so sequence gaps are counted on the wire order. */
  noteFrame(stats: SsrcStats, sequence: number, timestamp: number): void {
    if (stats.lastSequence !== null && sequence !== ((stats.lastSequence + 1) & 0xffff)) stats.sequenceGaps++;
    stats.lastSequence = sequence;
    stats.lastTimestamp = timestamp;
  }

  isSilence(opus: Buffer): boolean {
    return opus.equals(OPUS_SILENCE_FRAME);
  }

  store(stats: SsrcStats, packet: ReceivedPacket): void {
    stats.packets++;
    this.received.push(packet);
    const ready = this.waiters.filter((waiter) => this.received.length >= waiter.count);
    this.waiters = this.waiters.filter((waiter) => this.received.length < waiter.count);
    for (const waiter of ready) waiter.resolve(this.received.slice(0, waiter.count));
  }

  waitForPackets(count: number, timeoutMs: number): Promise<ReceivedPacket[]> {
    if (this.received.length >= count) return Promise.resolve(this.received.slice(0, count));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        count,
        resolve: (packets) => {
          clearTimeout(timer);
          resolve(packets);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((other) => other !== waiter);
        reject(new Error(`waited ${timeoutMs} ms for ${count} Opus packets, got ${this.received.length}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }
}
