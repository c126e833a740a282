import { afterEach, describe, expect, it } from 'vitest';
import { VoiceConnectionStatus } from '@discordjs/voice';
import { VoiceCloseCode, VoiceOp, snowflake, startFakeVoiceServer, type FakeVoiceServer } from './index.ts';
import { eventually, joinFakeVoice, leaveFakeVoice, nextTransition, opusTone, playOpus, untilIdle, untilReady } from './voice-client.ts';

afterEach(leaveFakeVoice);

const daveTypes = (fake: FakeVoiceServer) => fake.daveEvents.map((event) => event.type);

describe('DAVE end-to-end encryption on the fake voice server', () => {
  it('welcomes the bot into the MLS group of a user already in the channel, then decrypts its E2EE frames', async () => {
    const listener = snowflake();
    const server = await startFakeVoiceServer({ users: [listener] });
    const { connection } = joinFakeVoice(server);
    const transitioned = nextTransition(connection);
    await untilReady(connection);
    expect(await transitioned).toBeGreaterThan(0);
    expect(server.daveGroupMembers()).toEqual([listener]);
    expect(connection.voicePrivacyCode).toMatch(/^\d{30}$/);
    expect(server.daveVoicePrivacyCode()).toBe(connection.voicePrivacyCode);

    const frames = opusTone(0.5);
    const player = playOpus(connection, frames);
    const received = await server.waitForPackets(frames.length, 5_000);
    await untilIdle(player, 3_000);
    expect(received.map((packet) => packet.opus)).toEqual(frames);
    expect(received.every((packet) => packet.e2ee)).toBe(true);
    expect(server.stats()[0]).toMatchObject({ e2eeFailures: 0, transportFailures: 0 });
    expect(daveTypes(server)).toEqual(['external-sender', 'key-package', 'welcome', 'ready', 'execute']);
  });

  it('has the bot commit a user who joins later, after which its frames switch from plain to E2EE', async () => {
    const server = await startFakeVoiceServer();
    const { connection } = joinFakeVoice(server);
    await untilReady(connection);
    await eventually(() => daveTypes(server).includes('key-package'));

    const alone = opusTone(0.2, 330);
    await untilIdle(playOpus(connection, alone), 3_000);
    expect((await server.waitForPackets(alone.length, 2_000)).every((packet) => !packet.e2ee)).toBe(true);

    const listener = snowflake();
    const transitioned = nextTransition(connection);
    server.connectUser(listener);
    expect(await transitioned).toBeGreaterThan(0);
    expect(server.daveGroupMembers()).toEqual([listener]);
    expect(server.daveVoicePrivacyCode()).toBe(connection.voicePrivacyCode);
    expect(server.payloads.some((payload) => payload.binary && payload.op === VoiceOp.DaveMlsCommitWelcome)).toBe(true);

    const together = opusTone(0.2, 550);
    await untilIdle(playOpus(connection, together), 3_000);
    const received = await server.waitForPackets(alone.length + together.length, 2_000);
    const after = received.slice(alone.length);
    expect(after.map((packet) => packet.opus)).toEqual(together);
    expect(after.every((packet) => packet.e2ee)).toBe(true);

    const removed = nextTransition(connection);
    server.disconnectUser(listener);
    await removed;
    expect(server.daveGroupMembers()).toEqual([]);
    expect(daveTypes(server).filter((type) => type === 'error')).toEqual([]);
  });

  it('closes with 4017 when the client does not support DAVE, and never makes it ready', async () => {
    const server = await startFakeVoiceServer();
    const joined = joinFakeVoice(server, { daveEncryption: false, answeredJoins: 1 });
    const { connection } = joined;
    const closeCode = new Promise<number>((resolve) => {
      connection.on('stateChange', (_old, state) => {
        if (state.status === VoiceConnectionStatus.Connecting) state.networking.once('close', resolve);
      });
    });
    expect(await closeCode).toBe(VoiceCloseCode.DaveProtocolRequired);
    const identify = server.payloads.find((payload) => payload.op === VoiceOp.Identify);
    expect(identify?.d).toMatchObject({ max_dave_protocol_version: 0 });
    expect(server.closes).toEqual([expect.objectContaining({ code: 4017, by: 'server' })]);
    expect(server.session()).toBeNull();
    // @discordjs/voice treats 4017 as unexpected and asks the main gateway to rejoin.
    await eventually(() => joined.voiceStateRequests.length === 2);
    expect(connection.state.status).toBe(VoiceConnectionStatus.Signalling);
  });
});
