import { oggCrc32 } from '../ogg-crc.ts';

export interface OggPacket {
  data: Uint8Array;
  /** The page's granule position when this is the last packet completed on its page, else -1. */
  granule: bigint;
  /** The last packet of its logical stream (end-of-stream page). */
  last: boolean;
}

export interface OggLogicalStream {
  serial: number;
  packets: OggPacket[];
}

export interface OggDemuxResult {
  /** In the order their first pages appear: multiplexed streams side by side, chained ones one after another. */
  streams: OggLogicalStream[];
  /** Pages skipped for a bad checksum or structure, and packets lost with them. */
  damaged: number;
}

const CAPTURE = [0x4f, 0x67, 0x67, 0x53]; // "OggS"
const HEADER_BYTES = 27;
const FLAG_CONTINUED = 0x01;
const FLAG_BOS = 0x02;
const FLAG_EOS = 0x04;

const NO_CRC = new Uint8Array(4);

/** The page's CRC, computed with its CRC field read as zero. */
function pageCrc(bytes: Uint8Array, start: number, end: number): number {
  const crc = oggCrc32(NO_CRC, oggCrc32(bytes.subarray(start, start + 22)));
  return oggCrc32(bytes.subarray(start + 26, end), crc);
}

function isCapture(bytes: Uint8Array, at: number): boolean {
  return bytes[at] === CAPTURE[0] && bytes[at + 1] === CAPTURE[1] && bytes[at + 2] === CAPTURE[2] && bytes[at + 3] === CAPTURE[3];
}

function nextCapture(bytes: Uint8Array, from: number): number {
  for (let at = from; at + 4 <= bytes.length; at++) if (isCapture(bytes, at)) return at;
  return bytes.length;
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

interface StreamState {
  stream: OggLogicalStream;
  sequence: number;
  /** Segments of a packet that continues on the next page. */
  partial: Uint8Array[] | undefined;
}

/**
 * Splits an Ogg file into its logical streams' packets (RFC 3533). Like libogg it checks every page's
 * CRC, skips damaged pages by searching for the next capture pattern, and drops a packet whose pages
 * did not all arrive; a page cut off at the end of a download is left out.
 */
export function demuxOgg(bytes: Uint8Array): OggDemuxResult {
  const streams: OggLogicalStream[] = [];
  const states = new Map<number, StreamState>();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let damaged = 0;
  let at = 0;
  while (at + HEADER_BYTES <= bytes.length) {
    if (!isCapture(bytes, at)) {
      damaged++;
      at = nextCapture(bytes, at + 1);
      continue;
    }
    const segmentCount = bytes[at + 26]!;
    const bodyStart = at + HEADER_BYTES + segmentCount;
    if (bodyStart > bytes.length) break;
    let bodyLength = 0;
    for (let i = at + HEADER_BYTES; i < bodyStart; i++) bodyLength += bytes[i]!;
    const end = bodyStart + bodyLength;
    if (end > bytes.length) break;
    if (bytes[at + 4] !== 0 || pageCrc(bytes, at, end) !== view.getUint32(at + 22, true)) {
      damaged++;
      at = nextCapture(bytes, at + 1);
      continue;
    }
    const flags = bytes[at + 5]!;
    const granule = view.getBigInt64(at + 6, true);
    const serial = view.getUint32(at + 14, true);
    const sequence = view.getUint32(at + 18, true);
    let state = states.get(serial);
    // A beginning-of-stream page starts a new logical stream even under a serial seen before (`cat a.ogg a.ogg`).
    if (!state || (flags & FLAG_BOS) !== 0) {
      state = { stream: { serial, packets: [] }, sequence: sequence - 1, partial: undefined };
      states.set(serial, state);
      streams.push(state.stream);
    }
    const inOrder = sequence === state.sequence + 1;
    state.sequence = sequence;
    // A continued packet whose start was lost (or a partial packet whose end was lost) cannot be decoded.
    let skipContinuation = (flags & FLAG_CONTINUED) !== 0 && (!inOrder || !state.partial);
    if (state.partial && (!inOrder || (flags & FLAG_CONTINUED) === 0)) {
      state.partial = undefined;
      damaged++;
    }
    let completed: OggPacket | undefined;
    let offset = bodyStart;
    let segments: Uint8Array[] = state.partial ?? [];
    for (let i = 0; i < segmentCount; i++) {
      const lacing = bytes[at + HEADER_BYTES + i]!;
      if (!skipContinuation) segments.push(bytes.subarray(offset, offset + lacing));
      offset += lacing;
      if (lacing < 255) {
        if (!skipContinuation) {
          completed = { data: concat(segments), granule: -1n, last: false };
          state.stream.packets.push(completed);
        }
        skipContinuation = false;
        segments = [];
      }
    }
    state.partial = segments.length > 0 ? segments : undefined;
    if (completed) {
      completed.granule = granule;
      completed.last = (flags & FLAG_EOS) !== 0;
    }
    at = end;
  }
  return { streams, damaged };
}
