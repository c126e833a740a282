import { OPUS_PAYLOAD_TYPE } from './protocol.ts';

export interface RtpHeader {
  version: number;
  padding: boolean;
  marker: boolean;
  payloadType: number;
  sequence: number;
  timestamp: number;
  ssrc: number;
  csrcs: number[];
  /** The RFC 3550 extension profile (0xBEDE for RFC 8285 one-byte headers), when the X bit is set. */
  extensionProfile: number | null;
  /** Length of the extension body in bytes (its 32-bit word count times 4); the body itself is encrypted. */
  extensionLength: number;
  /**
   * Bytes sent in the clear: the fixed header, the CSRCs and the 4-byte extension preamble. In the "rtpsize"
   * modes this is exactly the AEAD additional data, the same split SRTP (RFC 3711 §3.1) uses.
   */
  clearLength: number;
}

/** Nonce suffix of the rtpsize modes: a 32-bit big-endian counter appended after the ciphertext. */
export const NONCE_SUFFIX_LENGTH = 4;

export function parseRtpHeader(packet: Buffer): RtpHeader | null {
  if (packet.length < 12) return null;
  const first = packet[0]!;
  const version = first >> 6;
  const csrcCount = first & 0x0f;
  const hasExtension = (first & 0x10) !== 0;
  let clearLength = 12 + csrcCount * 4;
  if (packet.length < clearLength) return null;
  const csrcs: number[] = [];
  for (let index = 0; index < csrcCount; index++) csrcs.push(packet.readUInt32BE(12 + index * 4));
  let extensionProfile: number | null = null;
  let extensionLength = 0;
  if (hasExtension) {
    if (packet.length < clearLength + 4) return null;
    extensionProfile = packet.readUInt16BE(clearLength);
    extensionLength = packet.readUInt16BE(clearLength + 2) * 4;
    clearLength += 4;
  }
  return {
    version,
    padding: (first & 0x20) !== 0,
    marker: (packet[1]! & 0x80) !== 0,
    payloadType: packet[1]! & 0x7f,
    sequence: packet.readUInt16BE(2),
    timestamp: packet.readUInt32BE(4),
    ssrc: packet.readUInt32BE(8),
    csrcs,
    extensionProfile,
    extensionLength,
    clearLength,
  };
}

export const isOpusRtp = (header: RtpHeader): boolean => header.version === 2 && header.payloadType === OPUS_PAYLOAD_TYPE;

/**
 * After decryption the plaintext starts with the extension body (when there is one); strip it, and RTP padding
 * (whose last byte counts the padding bytes), to leave the Opus frame.
 */
export function opusFromPlaintext(header: RtpHeader, plaintext: Buffer): Buffer | null {
  let end = plaintext.length;
  if (header.padding) {
    if (end === 0) return null;
    end -= plaintext[end - 1]!;
  }
  if (end < header.extensionLength) return null;
  return plaintext.subarray(header.extensionLength, end);
}
