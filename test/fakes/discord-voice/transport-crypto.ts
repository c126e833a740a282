import { createCipheriv, createDecipheriv } from 'node:crypto';
import type { TransportMode } from './protocol.ts';
import { NONCE_SUFFIX_LENGTH, type RtpHeader } from './rtp.ts';

const TAG_LENGTH = 16;

/**
 * Decrypts the payload of an rtpsize-mode voice packet: header (up to the extension preamble) is the additional
 * data, the last 4 bytes are the nonce counter, and the 16-byte tag sits right before them. Throws on a bad tag.
 */
export function decryptTransport(mode: TransportMode, key: Buffer, packet: Buffer, header: RtpHeader): Buffer {
  const aad = packet.subarray(0, header.clearLength);
  const nonceStart = packet.length - NONCE_SUFFIX_LENGTH;
  const tagStart = nonceStart - TAG_LENGTH;
  if (tagStart < header.clearLength) throw new Error('packet too short for its header, tag and nonce');
  const ciphertext = packet.subarray(header.clearLength, tagStart);
  const tag = packet.subarray(tagStart, nonceStart);
  const counter = packet.subarray(nonceStart);
  // The counter fills the first 4 bytes of the nonce; the rest stays zero.
  if (mode === 'aead_aes256_gcm_rtpsize') {
    const nonce = Buffer.alloc(12);
    counter.copy(nonce);
    return openAead('aes-256-gcm', key, nonce, aad, ciphertext, tag);
  }
  const nonce = Buffer.alloc(24);
  counter.copy(nonce);
  return xchacha20Poly1305Open(key, nonce, aad, ciphertext, tag);
}

/**
 * Encrypts a voice packet for a client the way the server forwards others' audio in the rtpsize modes: `clear`
 * (header up to the extension preamble) is the additional data, then ciphertext, tag and the 4-byte counter.
 */
export function encryptTransport(mode: TransportMode, key: Buffer, clear: Buffer, plaintext: Buffer, counter: number): Buffer {
  const suffix = Buffer.alloc(NONCE_SUFFIX_LENGTH);
  suffix.writeUInt32BE(counter >>> 0);
  const nonce = Buffer.alloc(mode === 'aead_aes256_gcm_rtpsize' ? 12 : 24);
  suffix.copy(nonce);
  const sealed =
    mode === 'aead_aes256_gcm_rtpsize'
      ? sealAead('aes-256-gcm', key, nonce, clear, plaintext)
      : sealAead(
          'chacha20-poly1305',
          hchacha20(key, nonce.subarray(0, 16)),
          Buffer.concat([Buffer.alloc(4), nonce.subarray(16, 24)]),
          clear,
          plaintext,
        );
  return Buffer.concat([clear, sealed, suffix]);
}

/** Ciphertext followed by its 16-byte tag. */
function sealAead(algorithm: 'aes-256-gcm' | 'chacha20-poly1305', key: Buffer, nonce: Buffer, aad: Buffer, plaintext: Buffer): Buffer {
  const cipher =
    algorithm === 'aes-256-gcm'
      ? createCipheriv(algorithm, key, nonce, { authTagLength: TAG_LENGTH })
      : createCipheriv(algorithm, key, nonce, { authTagLength: TAG_LENGTH });
  cipher.setAAD(aad, { plaintextLength: plaintext.length });
  return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

function openAead(algorithm: 'aes-256-gcm' | 'chacha20-poly1305', key: Buffer, nonce: Buffer, aad: Buffer, ciphertext: Buffer, tag: Buffer): Buffer {
  const decipher =
    algorithm === 'aes-256-gcm'
      ? createDecipheriv(algorithm, key, nonce, { authTagLength: TAG_LENGTH })
      : createDecipheriv(algorithm, key, nonce, { authTagLength: TAG_LENGTH });
  decipher.setAAD(aad, { plaintextLength: ciphertext.length });
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
}

/** AEAD_XChaCha20_Poly1305 (draft-irtf-cfrg-xchacha §2.3): HChaCha20 subkey, then IETF ChaCha20-Poly1305. */
export function xchacha20Poly1305Open(key: Buffer, nonce: Buffer, aad: Buffer, ciphertext: Buffer, tag: Buffer): Buffer {
  const subkey = hchacha20(key, nonce.subarray(0, 16));
  const innerNonce = Buffer.concat([Buffer.alloc(4), nonce.subarray(16, 24)]);
  return openAead('chacha20-poly1305', subkey, innerNonce, aad, ciphertext, tag);
}

const rotl = (value: number, bits: number): number => ((value << bits) | (value >>> (32 - bits))) >>> 0;

function quarterRound(s: Uint32Array, a: number, b: number, c: number, d: number): void {
  s[a] = (s[a]! + s[b]!) >>> 0;
  s[d] = rotl(s[d]! ^ s[a]!, 16);
  s[c] = (s[c]! + s[d]!) >>> 0;
  s[b] = rotl(s[b]! ^ s[c]!, 12);
  s[a] = (s[a]! + s[b]!) >>> 0;
  s[d] = rotl(s[d]! ^ s[a]!, 8);
  s[c] = (s[c]! + s[d]!) >>> 0;
  s[b] = rotl(s[b]! ^ s[c]!, 7);
}

/** HChaCha20 (draft-irtf-cfrg-xchacha §2.2): 20 ChaCha rounds without the final addition; words 0-3 and 12-15. */
export function hchacha20(key: Buffer, nonce16: Buffer): Buffer {
  const state = new Uint32Array(16);
  state.set([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574]);
  for (let index = 0; index < 8; index++) state[4 + index] = key.readUInt32LE(index * 4);
  for (let index = 0; index < 4; index++) state[12 + index] = nonce16.readUInt32LE(index * 4);
  for (let round = 0; round < 10; round++) {
    quarterRound(state, 0, 4, 8, 12);
    quarterRound(state, 1, 5, 9, 13);
    quarterRound(state, 2, 6, 10, 14);
    quarterRound(state, 3, 7, 11, 15);
    quarterRound(state, 0, 5, 10, 15);
    quarterRound(state, 1, 6, 11, 12);
    quarterRound(state, 2, 7, 8, 13);
    quarterRound(state, 3, 4, 9, 14);
  }
  const out = Buffer.alloc(32);
  [0, 1, 2, 3, 12, 13, 14, 15].forEach((word, index) => out.writeUInt32LE(state[word]!, index * 4));
  return out;
}
