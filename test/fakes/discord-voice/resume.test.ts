import { afterEach, describe, expect, it } from 'vitest';
import { SAMPLES_PER_FRAME, VoiceOp, snowflake, startFakeVoiceServer, type FakeVoiceServer } from './index.ts';
import { eventually, joinFakeVoice, leaveFakeVoice, nextTransition, opusTone, playOpus, untilIdle, untilReady } from './voice-client.ts';

afterEach(leaveFakeVoice);

const resumes = (fake: FakeVoiceServer) => fake.payloads.filter((payload) => payload.op === VoiceOp.Resume);

describe('dropped voice websocket', () => {
  it.each([
    ['closed with 4015 (voice server crashed)', 4015],
    ['cut without a close frame', undefined],
  ])('is resumed when %s, and playback continues without losing a frame', async (_how, code) => {
    const server = await startFakeVoiceServer();
    const { connection } = joinFakeVoice(server);
    await untilReady(connection);
    const ssrc = server.session()!.ssrc;
    const frames = opusTone(2);
    const player = playOpus(connection, frames);
    await server.waitForPackets(30, 3_000);
    server.dropConnection(code);

    const received = await server.waitForPackets(frames.length, 6_000);
    await untilIdle(player, 3_000);
    expect(received.map((packet) => packet.opus)).toEqual(frames);
    expect(resumes(server)).toEqual([expect.objectContaining({ d: expect.objectContaining({ session_id: server.sessionId, token: server.token }) })]);
    expect(server.session()).toMatchObject({ ssrc, connected: true });
    // One RTP stream across the resume: sequence numbers step by one, timestamps by one frame per step.
    const [stats] = server.stats();
    expect(stats).toMatchObject({ sequenceGaps: 0, transportFailures: 0 });
    const [first] = received;
    for (const packet of received) {
      const steps = (packet.sequence - first!.sequence) & 0xffff;
      expect((packet.timestamp - first!.timestamp) >>> 0).toBe((steps * SAMPLES_PER_FRAME) >>> 0);
    }
    // The client forgets its speaking state on Resumed and announces it again on the new websocket.
    await eventually(() => server.speaking.length === 3);
    expect(server.speaking.map((event) => event.speaking)).toEqual([1, 1, 0]);
  });

  it('replays what the gateway sent while the websocket was down (v8 buffered resume)', async () => {
    const server = await startFakeVoiceServer();
    const { connection } = joinFakeVoice(server);
    await untilReady(connection);
    await eventually(() => server.daveEvents.some((event) => event.type === 'key-package'));

    const listener = snowflake();
    const transitioned = nextTransition(connection);
    server.dropConnection();
    server.connectUser(listener);
    expect(await transitioned).toBeGreaterThan(0);
    expect(server.daveGroupMembers()).toEqual([listener]);
    const [resume] = resumes(server);
    // Everything up to the external sender package (opcode 25) had arrived before the drop.
    expect((resume!.d as { seq_ack: number }).seq_ack).toBeGreaterThanOrEqual(2);

    const frames = opusTone(0.3);
    await untilIdle(playOpus(connection, frames), 3_000);
    const received = await server.waitForPackets(frames.length, 2_000);
    expect(received.map((packet) => packet.opus)).toEqual(frames);
    expect(received.every((packet) => packet.e2ee)).toBe(true);
  });
});
