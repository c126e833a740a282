import { afterEach, describe, expect, it } from 'vitest';
import { SAMPLES_PER_FRAME, startFakeVoiceServer, type FakeVoiceServer } from './index.ts';
import { eventually, joinFakeVoice, opusTone, playOpus, untilIdle, untilReady } from './voice-client.ts';

let server: FakeVoiceServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('fake Discord voice server with the real @discordjs/voice', () => {
  it('receives exactly the Opus frames an AudioPlayer plays, in RTP order, while the bot speaks', async () => {
    server = await startFakeVoiceServer({ heartbeatIntervalMs: 200 });
    const { connection } = joinFakeVoice(server);
    try {
      await untilReady(connection);
      const session = server.session()!;
      expect(session.mode).toBe('aead_aes256_gcm_rtpsize');
      const frames = opusTone(1);
      const player = playOpus(connection, frames);
      const received = await server.waitForPackets(frames.length, 5_000);
      await untilIdle(player, 3_000);

      expect(received.map((packet) => packet.opus)).toEqual(frames);
      expect(received.every((packet) => packet.ssrc === session.ssrc && !packet.e2ee)).toBe(true);
      for (let index = 1; index < received.length; index++) {
        expect(received[index]!.sequence).toBe((received[index - 1]!.sequence + 1) & 0xffff);
        expect(received[index]!.timestamp).toBe((received[index - 1]!.timestamp + SAMPLES_PER_FRAME) >>> 0);
      }
      const [stats] = server.stats();
      expect(stats).toMatchObject({ packets: frames.length, transportFailures: 0, sequenceGaps: 0 });
      // The resource pads with silence frames after its last frame; they are counted, not stored.
      expect(stats!.silenceFrames).toBeGreaterThan(0);
      await eventually(() => server!.speaking.length === 2);
      expect(server.speaking.map(({ speaking, ssrc }) => ({ speaking, ssrc }))).toEqual([
        { speaking: 1, ssrc: session.ssrc },
        { speaking: 0, ssrc: session.ssrc },
      ]);
      expect(server.udpCounters.discoveries).toBe(1);
      expect(server.session()!.selectedAddress).toEqual(server.session()!.discoveredFrom);
      const heartbeats = server.payloads.filter((payload) => payload.op === 3);
      expect(heartbeats.length).toBeGreaterThan(0);
      expect((heartbeats.at(-1)!.d as { seq_ack: number }).seq_ack).toBeGreaterThanOrEqual(1);
      expect(connection.ping.ws).toEqual(expect.any(Number));
    } finally {
      connection.destroy();
    }
  });
});
