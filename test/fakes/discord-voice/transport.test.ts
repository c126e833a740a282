import { createCipheriv, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeVoiceServer } from './index.ts';
import { opusFromPlaintext, parseRtpHeader } from './rtp.ts';
import { decryptTransport, hchacha20, xchacha20Poly1305Open } from './transport-crypto.ts';
import { joinFakeVoice, leaveFakeVoice, opusTone, playOpus, untilIdle, untilReady } from './voice-client.ts';

const hex = (text: string) => Buffer.from(text, 'hex');

afterEach(leaveFakeVoice);

describe('transport encryption', () => {
  it('decrypts aead_xchacha20_poly1305_rtpsize when that is the only mode the server offers', async () => {
    const server = await startFakeVoiceServer({ modes: ['aead_xchacha20_poly1305_rtpsize'] });
    const { connection } = joinFakeVoice(server);
    await untilReady(connection);
    expect(server.session()!.mode).toBe('aead_xchacha20_poly1305_rtpsize');
    const frames = opusTone(0.3);
    await untilIdle(playOpus(connection, frames), 3_000);
    const received = await server.waitForPackets(frames.length, 2_000);
    expect(received.map((packet) => packet.opus)).toEqual(frames);
    expect(server.stats()[0]!.transportFailures).toBe(0);
  });

  it('matches the XChaCha20-Poly1305 vectors of draft-irtf-cfrg-xchacha', () => {
    const key = hex('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
    expect(hchacha20(key, hex('000000090000004a0000000031415927')).toString('hex')).toBe(
      '82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc',
    );
    const ciphertext = hex(
      'bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c2' +
        '16cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52e',
    );
    const plaintext = xchacha20Poly1305Open(
      hex('808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f'),
      hex('404142434445464748494a4b4c4d4e4f5051525354555657'),
      hex('50515253c0c1c2c3c4c5c6c7'),
      ciphertext,
      hex('c0875924c1c7987947deafd8780acf49'),
    );
    expect(plaintext.toString()).toMatch(/^Ladies and Gentlemen of the class of '99/);
  });

  it('authenticates the RTP extension preamble and strips the encrypted extension body, as clients send them', () => {
    const key = randomBytes(32);
    const opus = randomBytes(60);
    // V=2 with the X bit, payload type 0x78, then a one-word RFC 8285 (0xBEDE) extension.
    const header = Buffer.from('90780102000003c01234567800000000', 'hex');
    header.writeUInt16BE(0xbede, 12);
    header.writeUInt16BE(1, 14);
    const extensionBody = Buffer.from([0x10, 0xff, 0x00, 0x00]);
    const counter = Buffer.from([0, 0, 0, 7]);
    const cipher = createCipheriv('aes-256-gcm', key, Buffer.concat([counter, Buffer.alloc(8)]));
    cipher.setAAD(header);
    const sealed = Buffer.concat([cipher.update(Buffer.concat([extensionBody, opus])), cipher.final(), cipher.getAuthTag()]);
    const packet = Buffer.concat([header, sealed, counter]);

    const parsed = parseRtpHeader(packet)!;
    expect(parsed).toMatchObject({ sequence: 0x0102, timestamp: 0x3c0, ssrc: 0x12345678, extensionProfile: 0xbede, clearLength: 16 });
    const plaintext = decryptTransport('aead_aes256_gcm_rtpsize', key, packet, parsed);
    expect(opusFromPlaintext(parsed, plaintext)).toEqual(opus);

    const tampered = Buffer.from(packet);
    tampered[15] = 2; // the extension length is additional data: changing it must fail authentication
    expect(() => decryptTransport('aead_aes256_gcm_rtpsize', key, tampered, parseRtpHeader(tampered)!)).toThrow();
  });
});
