import { setTimeout as sleep } from 'node:timers/promises';
import { entersState, VoiceConnectionStatus, type DiscordGatewayAdapterCreator } from '@discordjs/voice';
import { afterEach, describe, expect, it } from 'vitest';
import { DiscordVoiceLink, type DiscordVoiceLinkOptions } from '../../adapters/discord/voice/discord-voice-link.ts';
import { opusFrameStream } from '../../src/media/speech/opus-frame-stream.ts';
import { startLiveSpeech } from '../../src/voice/live-speech.ts';
import { VoiceError } from '../../src/voice/voice-error.ts';
import type { VoiceLoss } from '../../src/voice/voice-link.ts';
import { snowflake, startFakeVoiceServer, type FakeVoiceServer } from '../fakes/discord-voice/index.ts';
import { FakeSynth, tone } from './fakes.ts';
import { silentLogger } from '../helpers/logger.ts';

let server: FakeVoiceServer | undefined;
/** A second channel's voice server, for moves. */
let other: FakeVoiceServer | undefined;
let link: DiscordVoiceLink | undefined;
afterEach(async () => {
  link?.leave();
  link = undefined;
  await server?.close();
  await other?.close();
  server = other = undefined;
});

/**
 * Stands in for discord.js's guild adapter: answers a connection's first join the way the main gateway
 * does (VOICE_STATE_UPDATE, VOICE_SERVER_UPDATE). Later joins of the same connection go unanswered, so
 * only a fresh connection gets back in. `staleLeave` first delivers the leave (channel null) of an earlier
 * connection, as the gateway does when a join closely follows a leave; `moveTo` plays a moderator's move.
 */
function mainGateway(voice: FakeVoiceServer, options: { answer?: boolean; staleLeave?: boolean } = {}) {
  const payloads: { channel_id: string | null }[] = [];
  let latest: Parameters<DiscordGatewayAdapterCreator>[0] | undefined;
  const adapterCreator: DiscordGatewayAdapterCreator = (methods) => {
    latest = methods;
    let answered = !(options.answer ?? true);
    return {
      sendPayload(payload) {
        const d = (payload as { d: { channel_id: string | null } }).d;
        payloads.push(d);
        if (d.channel_id && !answered) {
          answered = true;
          setImmediate(() => {
            if (options.staleLeave) methods.onVoiceStateUpdate({ ...voice.voiceStateUpdate(), channel_id: null });
            methods.onVoiceStateUpdate(voice.voiceStateUpdate());
            methods.onVoiceServerUpdate(voice.voiceServerUpdate());
          });
        }
        return true;
      },
      destroy() {},
    };
  };
  const moveTo = (other: FakeVoiceServer) => {
    latest!.onVoiceStateUpdate(other.voiceStateUpdate());
    latest!.onVoiceServerUpdate(other.voiceServerUpdate());
  };
  return { adapterCreator, payloads, moveTo };
}

function joinOptions(voice: FakeVoiceServer, overrides: Partial<DiscordVoiceLinkOptions> = {}): DiscordVoiceLinkOptions {
  return {
    guildId: voice.guildId,
    channelId: voice.channelId,
    adapterCreator: mainGateway(voice).adapterCreator,
    logger: silentLogger,
    recoverTimeoutMs: 500,
    rejoinDelayMs: 50,
    moveGraceMs: 300,
    ...overrides,
  };
}

async function encoded(pcm: Buffer): Promise<Buffer[]> {
  const packets: Buffer[] = [];
  for await (const packet of opusFrameStream(
    (async function* () {
      yield pcm;
    })(),
  ))
    packets.push(packet);
  return packets;
}

describe('DiscordVoiceLink against a fake Discord voice server', () => {
  it('speaks live into a DAVE end-to-end encrypted call: packets arrive while speech is still being synthesized', async () => {
    const listener = snowflake();
    server = await startFakeVoiceServer({ users: [listener] });
    link = await DiscordVoiceLink.join(joinOptions(server));
    const speech = tone(1);
    const synth = new FakeSynth();
    const live = startLiveSpeech((signal) => synth.synthesize({ text: 'x', signal }));
    const played = link.play(live.packets);
    await synth.waitForRequests(1);
    synth.requests[0]!.push(speech.subarray(0, 4800)); // 100 ms, then the service is still "thinking"
    const [first] = await server.waitForPackets(1, 2_000);
    expect(first!.e2ee).toBe(true);
    for (let at = 4800; at < speech.length; at += 4800) {
      await sleep(60); // the service's pace: a little slower than real time
      synth.requests[0]!.push(speech.subarray(at, at + 4800));
    }
    const synthesisEnded = performance.now();
    synth.requests[0]!.end();
    await played;

    expect(first!.arrivedAt).toBeLessThan(synthesisEnded);
    expect(server.received.map((packet) => packet.opus)).toEqual(await encoded(speech));
    expect(server.received.every((packet) => packet.e2ee)).toBe(true);
    expect(server.daveGroupMembers()).toEqual([listener]);
    expect(server.stats()[0]).toMatchObject({ transportFailures: 0, sequenceGaps: 0 });
  });

  it('rejoins by itself after a voice drop the library cannot recover, and the speech goes on', async () => {
    server = await startFakeVoiceServer({ users: [snowflake()] });
    const gateway = mainGateway(server);
    link = await DiscordVoiceLink.join(joinOptions(server, { adapterCreator: gateway.adapterCreator }));
    const speech = tone(2);
    const live = startLiveSpeech(async function* () {
      yield speech;
    });
    const played = link.play(live.packets);
    await server.waitForPackets(20, 3_000);
    server.dropConnection(4006); // session no longer valid: no resume; the library's own rejoin goes unanswered
    await played;

    const expected = await encoded(speech);
    const received = server.received.map((packet) => packet.opus);
    expect(server.payloads.filter((payload) => payload.op === 0)).toHaveLength(2); // a second Identify
    expect(gateway.payloads.map((d) => d.channel_id)).toEqual([server.channelId, server.channelId, null, server.channelId]);
    // At most the two packets in flight on the dead connection (40 ms) are lost; everything after the rejoin arrives.
    expect(received.length).toBeGreaterThanOrEqual(expected.length - 2);
    expect(received.slice(-40)).toEqual(expected.slice(-40));
    expect(server.received.every((packet) => packet.e2ee)).toBe(true); // the new call's DAVE group before any audio
    expect(link.connection?.state.status).toBe('ready');
  });

  it('gives up and reports the loss when the bot is disconnected from the channel', async () => {
    server = await startFakeVoiceServer({ users: [snowflake()] });
    link = await DiscordVoiceLink.join(joinOptions(server));
    const lost = new Promise<VoiceLoss>((resolve) => link!.onLost(resolve));
    const played = link.play(
      startLiveSpeech(async function* () {
        yield tone(5);
      }).packets,
    );
    await server.waitForPackets(5, 3_000);
    server.dropConnection(4014);
    expect(await lost).toEqual({ reason: 'I was disconnected from the voice channel.', removed: true });
    await played; // playback ends with the link
    expect(server.received.length).toBeLessThan(100);
  });

  it('follows a move to another channel even when the old call closes (4014) before Discord names the new one', async () => {
    server = await startFakeVoiceServer({ users: [snowflake()] });
    other = await startFakeVoiceServer({ guildId: server.guildId, userId: server.userId, sessionId: server.sessionId, users: [snowflake()] });
    const gateway = mainGateway(server);
    link = await DiscordVoiceLink.join(joinOptions(server, { adapterCreator: gateway.adapterCreator, moveGraceMs: 3_000 }));
    const moves: string[] = [];
    link.onMoved((channelId) => moves.push(channelId));
    const losses: VoiceLoss[] = [];
    link.onLost((loss) => losses.push(loss));
    const speech = tone(2);
    const played = link.play(
      startLiveSpeech(async function* () {
        yield speech;
      }).packets,
    );
    await server.waitForPackets(20, 3_000);
    server.dropConnection(4014);
    await entersState(link.connection!, VoiceConnectionStatus.Disconnected, 2_000);
    gateway.moveTo(other);
    await played;

    const expected = await encoded(speech);
    const before = server.received.map((packet) => packet.opus);
    const after = other.received.map((packet) => packet.opus);
    expect({ moves, losses, channelId: link.channelId }).toEqual({ moves: [other.channelId], losses: [], channelId: other.channelId });
    expect(before.length + after.length).toBeGreaterThanOrEqual(expected.length - 2);
    expect(after).toEqual(expected.slice(-after.length));
    expect(other.received.every((packet) => packet.e2ee)).toBe(true);
    expect(gateway.payloads.map((d) => d.channel_id)).toEqual([server.channelId]); // no rejoin of its own
  });

  it('is not thrown off by the leave of an earlier connection arriving while it joins', async () => {
    server = await startFakeVoiceServer({ users: [snowflake()] });
    const gateway = mainGateway(server, { staleLeave: true });
    link = await DiscordVoiceLink.join(joinOptions(server, { adapterCreator: gateway.adapterCreator, readyTimeoutMs: 3_000 }));
    const losses: VoiceLoss[] = [];
    link.onLost((loss) => losses.push(loss));
    const speech = tone(0.3);
    await link.play(
      startLiveSpeech(async function* () {
        yield speech;
      }).packets,
    );
    expect(server.received.map((packet) => packet.opus)).toEqual(await encoded(speech));
    expect(losses).toEqual([]);
  });

  it('fails with a clear error when the voice connection cannot be made in time', async () => {
    server = await startFakeVoiceServer();
    const gateway = mainGateway(server, { answer: false });
    const joining = DiscordVoiceLink.join(joinOptions(server, { adapterCreator: gateway.adapterCreator, readyTimeoutMs: 300 }));
    await expect(joining).rejects.toThrow(VoiceError);
    await expect(joining).rejects.toMatchObject({ code: 'connect_failed' });
    expect(gateway.payloads.map((d) => d.channel_id)).toEqual([server.channelId, null]); // asked to join, then left
  });
});
