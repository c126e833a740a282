import { oggCrc32 } from '../ogg-crc.ts';

/** Ogg framing (RFC 3533) for a single logical stream: packets in, pages out. */

const HEADER_BYTES = 27;
const MAX_SEGMENTS = 255;
const FLAG_BOS = 0x02;
const FLAG_EOS = 0x04;

export interface OggPacket {
  data: Uint8Array;
  /** Granule position after this packet; pages carry the value of the last packet that ends on them. */
  granule: bigint;
}

/**
 * Lays packets out on pages. Each call to `page` writes the given packets onto fresh pages (a packet
 * never straddles a page here: Opus packets are at most 1275 bytes, which fits in one page's 255 segments).
 */
export class OggPageWriter {
  readonly #serial: number;
  #sequence = 0;
  #pages: Buffer[] = [];

  constructor(serial: number) {
    this.#serial = serial >>> 0;
  }

  /** Writes packets onto as many pages as their lacing needs; `last` marks the final page end-of-stream. */
  page(packets: OggPacket[], options: { last?: boolean } = {}): void {
    let start = 0;
    while (start < packets.length) {
      let segments = 0;
      let end = start;
      while (end < packets.length) {
        const needed = Math.floor(packets[end]!.data.length / 255) + 1;
        if (segments + needed > MAX_SEGMENTS) break;
        segments += needed;
        end++;
      }
      if (end === start) {
        throw new RangeError(`Ogg packet of ${packets[start]!.data.length} bytes does not fit one page`);
      }
      const flags = (this.#sequence === 0 ? FLAG_BOS : 0) | (options.last && end === packets.length ? FLAG_EOS : 0);
      this.#pages.push(this.#build(packets.slice(start, end), segments, flags));
      start = end;
    }
  }

  /** The whole stream written so far. */
  bytes(): Buffer {
    return Buffer.concat(this.#pages);
  }

  #build(packets: OggPacket[], segments: number, flags: number): Buffer {
    const bodyBytes = packets.reduce((n, p) => n + p.data.length, 0);
    const page = Buffer.alloc(HEADER_BYTES + segments + bodyBytes);
    page.write('OggS', 0, 'latin1');
    page[4] = 0; // stream structure version
    page[5] = flags;
    page.writeBigUInt64LE(packets[packets.length - 1]!.granule, 6);
    page.writeUInt32LE(this.#serial, 14);
    page.writeUInt32LE(this.#sequence++, 18);
    page[26] = segments;
    let lace = HEADER_BYTES;
    let body = HEADER_BYTES + segments;
    for (const { data } of packets) {
      for (let left = data.length; ; left -= 255) {
        page[lace++] = Math.min(left, 255);
        if (left < 255) break;
      }
      page.set(data, body);
      body += data.length;
    }
    page.writeUInt32LE(oggCrc32(page), 22);
    return page;
  }
}
