// Test-side wiring of the real @discordjs/voice to a FakeVoiceServer, standing in for the main Discord gateway.
import { Readable } from 'node:stream';
import {
  AudioPlayerStatus,
  StreamType,
  VoiceConnectionStatus,
  createAudioPlayer,
  createAudioResource,
  entersState,
  joinVoiceChannel,
  type AudioPlayer,
  type DiscordGatewayAdapterCreator,
  type VoiceConnection,
} from '@discordjs/voice';
import OpusScript from 'opusscript';
import type { FakeVoiceServer } from './index.ts';

export interface JoinedVoice {
  connection: VoiceConnection;
  /** Gateway opcode 4 payloads the connection asked the main gateway to send. */
  voiceStateRequests: unknown[];
}

/**
 * Joins the fake server's channel. The adapter answers a join request the way Discord's main gateway does:
 * VOICE_STATE_UPDATE, then VOICE_SERVER_UPDATE. It answers only the first `answeredJoins` requests, so a client
 * that keeps rejoining after a fatal close code does not loop.
 */
export function joinFakeVoice(server: FakeVoiceServer, options: { daveEncryption?: boolean; answeredJoins?: number } = {}): JoinedVoice {
  const voiceStateRequests: unknown[] = [];
  let answersLeft = options.answeredJoins ?? Number.POSITIVE_INFINITY;
  const adapterCreator: DiscordGatewayAdapterCreator = (methods) => ({
    sendPayload(payload) {
      voiceStateRequests.push(payload);
      const joining = (payload as { d?: { channel_id?: string | null } }).d?.channel_id;
      if (joining && answersLeft-- > 0) {
        setImmediate(() => {
          methods.onVoiceStateUpdate(server.voiceStateUpdate());
          methods.onVoiceServerUpdate(server.voiceServerUpdate());
        });
      }
      return true;
    },
    destroy() {},
  });
  const connection = joinVoiceChannel({
    guildId: server.guildId,
    channelId: server.channelId,
    adapterCreator,
    daveEncryption: options.daveEncryption ?? true,
  });
  joined.set(connection, server);
  return { connection, voiceStateRequests };
}

/** The calls joined since the last leaveFakeVoice, with the server each joined. */
const joined = new Map<VoiceConnection, FakeVoiceServer>();

/** Leaves every call joined since it last ran and closes their servers: a test's clean-up (`afterEach(leaveFakeVoice)`). */
export async function leaveFakeVoice(): Promise<void> {
  const calls = [...joined];
  joined.clear();
  for (const [connection] of calls) if (connection.state.status !== VoiceConnectionStatus.Destroyed) connection.destroy();
  for (const server of new Set(calls.map(([, server]) => server))) await server.close();
}

/** A sine tone encoded as 20 ms Opus frames, 48 kHz stereo, the format Discord voice carries. */
export function opusTone(seconds: number, frequency = 440): Buffer[] {
  const encoder = new OpusScript(48_000, 2, OpusScript.Application.AUDIO);
  const samplesPerFrame = 960;
  const frames: Buffer[] = [];
  for (let frame = 0; frame < Math.round(seconds * 50); frame++) {
    const pcm = Buffer.alloc(samplesPerFrame * 4);
    for (let index = 0; index < samplesPerFrame; index++) {
      const t = (frame * samplesPerFrame + index) / 48_000;
      const sample = Math.round(Math.sin(2 * Math.PI * frequency * t) * 12_000);
      pcm.writeInt16LE(sample, index * 4);
      pcm.writeInt16LE(sample, index * 4 + 2);
    }
    frames.push(Buffer.from(encoder.encode(pcm, samplesPerFrame)));
  }
  encoder.delete();
  return frames;
}

/** Plays pre-encoded Opus frames through a real AudioPlayer subscribed to the connection. */
export function playOpus(connection: VoiceConnection, frames: Buffer[]): AudioPlayer {
  const player = createAudioPlayer();
  connection.subscribe(player);
  player.play(createAudioResource(Readable.from(frames), { inputType: StreamType.Opus }));
  return player;
}

export const untilReady = (connection: VoiceConnection): Promise<VoiceConnection> => entersState(connection, VoiceConnectionStatus.Ready, 5_000);

export const untilIdle = (player: AudioPlayer, timeoutMs: number): Promise<AudioPlayer> => entersState(player, AudioPlayerStatus.Idle, timeoutMs);

/** Resolves with the id of the next DAVE transition the connection executes. */
export const nextTransition = (connection: VoiceConnection, timeoutMs = 5_000): Promise<number> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no DAVE transition executed')), timeoutMs);
    connection.once('transitioned', (id: number) => {
      clearTimeout(timer);
      resolve(id);
    });
  });

/** Polls until `check` returns true: for effects that cross the websocket after the client-side event. */
export async function eventually(check: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${check.toString()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
