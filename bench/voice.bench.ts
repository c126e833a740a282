import type { DiscordGatewayAdapterCreator } from '@discordjs/voice';
import { availableParallelism, loadavg } from 'node:os';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { Worker } from 'node:worker_threads';
import { pino } from 'pino';
import { DiscordVoiceLink } from '../adapters/discord/voice/discord-voice-link.ts';
import { synthesizeStream } from '../src/capabilities/synthesize.ts';
import { loadConfig } from '../src/config/config.ts';
import { opusFrameStream } from '../src/media/speech/opus-frame-stream.ts';
import { createServiceClient } from '../src/service/client.ts';
import { startLiveSpeech, warmUpLiveSpeech } from '../src/voice/live-speech.ts';
import { startEmulator } from '../test/fakes/service/emulator.ts';
import { int16Bytes, speechLike, toInt16Array } from '../test/media/speech/signals.ts';
import { median } from './stats.ts';
import { workerAnswer } from './worker-answer.ts';

const LATENCY_RUNS = 20;
const CPU_SECONDS = 20;
const CHUNK_MS = 100;
const logger = pino({ level: 'silent' });

interface VoiceServerInfo {
  endpoint: string;
  certificatePem: string;
  guildId: string;
  channelId: string;
  stateUpdate: unknown;
  serverUpdate: unknown;
}

/**
 * The fake Discord voice server (real DAVE, UDP decryption) runs in a worker thread, so the main thread's
 * CPU time is Herald's alone: pipeline, player, DAVE and transport encryption, UDP sends.
 */
function startVoiceServerWorker(): Promise<{ info: VoiceServerInfo; packets(): Promise<number>; close(): Promise<void> }> {
  const serverModule = new URL('../test/fakes/discord-voice/index.ts', import.meta.url).href;
  const worker = new Worker(
    `
    const { parentPort } = require('node:worker_threads');
    import(${JSON.stringify(serverModule)}).then(async ({ startFakeVoiceServer, snowflake }) => {
      const server = await startFakeVoiceServer({ users: [snowflake()], trustCertificate: false });
      parentPort.on('message', async (message) => {
        if (message === 'packets') parentPort.postMessage({ packets: server.received.length });
        if (message === 'close') { await server.close(); parentPort.postMessage({ closed: true }); }
      });
      parentPort.postMessage({ info: {
        endpoint: server.endpoint, certificatePem: server.certificatePem, guildId: server.guildId, channelId: server.channelId,
        stateUpdate: server.voiceStateUpdate(), serverUpdate: server.voiceServerUpdate(),
      } });
    });
    `,
    { eval: true },
  );
  const next = <T>(key: string) => workerAnswer<T>(worker, key);
  return next<VoiceServerInfo>('info').then((info) => ({
    info,
    packets: () => {
      const answer = next<number>('packets');
      worker.postMessage('packets');
      return answer;
    },
    close: async () => {
      const closed = next<boolean>('closed');
      worker.postMessage('close');
      await closed;
      await worker.terminate();
    },
  }));
}

function mainGateway(info: VoiceServerInfo): DiscordGatewayAdapterCreator {
  return (methods) => ({
    sendPayload(payload) {
      if ((payload as { d: { channel_id: string | null } }).d.channel_id) {
        setImmediate(() => {
          methods.onVoiceStateUpdate(info.stateUpdate as Parameters<typeof methods.onVoiceStateUpdate>[0]);
          methods.onVoiceServerUpdate(info.serverUpdate as Parameters<typeof methods.onVoiceServerUpdate>[0]);
        });
      }
      return true;
    },
    destroy() {},
  });
}

/** Calls `onPacket` with the time of each packet the audio player hands to the connection (silence excluded). */
function watchHandOver(link: DiscordVoiceLink, onPacket: (at: number) => void): void {
  const connection = link.connection!;
  const prepare = connection.prepareAudioPacket.bind(connection);
  connection.prepareAudioPacket = (packet: Buffer) => {
    if (!(packet.length === 3 && packet[0] === 0xf8)) onPacket(performance.now());
    return prepare(packet);
  };
}

function threadCpuMs(since: NodeJS.CpuUsage): number {
  const used = process.threadCpuUsage(since);
  return (used.user + used.system) / 1000;
}

/** First pcm16 chunk out of the service stream → first Opus packet handed to the voice connection, per /say. */
async function firstPacketLatencies(link: DiscordVoiceLink, runs: number): Promise<number[]> {
  const emu = await startEmulator({ pace: { tokensPerSecond: 0, ttsChunkIntervalMs: CHUNK_MS } });
  const config = loadConfig({ API_BASE_URL: emu.url, API_KEY: emu.apiKey, STORE_URL: 'memory://' }, { envFile: '/nonexistent/.env' });
  const client = createServiceClient(config, logger);
  const deps = { client, config, logger };
  const latencies: number[] = [];
  let firstChunkAt = 0;
  let handedAt = 0;
  watchHandOver(link, (at) => (handedAt ||= at));
  try {
    for (let run = 0; run < runs; run++) {
      firstChunkAt = 0;
      handedAt = 0;
      const live = startLiveSpeech(async function* (signal) {
        for await (const chunk of synthesizeStream(deps, { text: 'Latency check.', signal })) {
          firstChunkAt ||= performance.now();
          yield chunk;
        }
      });
      await link.play(live.packets);
      latencies.push(handedAt - firstChunkAt);
    }
  } finally {
    await client.close();
    await emu.close();
  }
  return latencies;
}

/** Plays `seconds` of speech-like audio arriving in real time, as a service streams it; main-thread CPU. */
async function liveCpu(link: DiscordVoiceLink, seconds: number): Promise<{ cpuMs: number; wallMs: number; encodeOnlyMs: number }> {
  const bytes = int16Bytes(toInt16Array(speechLike(seconds, 24_000)));
  const chunkBytes = (24_000 * 2 * CHUNK_MS) / 1000;
  const cpuStart = process.threadCpuUsage();
  const wallStart = performance.now();
  const live = startLiveSpeech(async function* () {
    for (let at = 0; at < bytes.length; at += chunkBytes) {
      yield bytes.subarray(at, at + chunkBytes);
      await new Promise((resolve) => setTimeout(resolve, CHUNK_MS));
    }
  });
  await link.play(live.packets);
  const cpuMs = threadCpuMs(cpuStart);
  const wallMs = performance.now() - wallStart;
  const encodeStart = process.threadCpuUsage();
  for await (const packet of opusFrameStream(
    (async function* () {
      yield bytes;
    })(),
  ))
    void packet;
  return { cpuMs, wallMs, encodeOnlyMs: threadCpuMs(encodeStart) };
}

export async function run(): Promise<{ markdown: string }> {
  const server = await startVoiceServerWorker();
  setDefaultCACertificates([...getCACertificates('default'), server.info.certificatePem]);
  // As the speech queue does: the pipeline warms up while the first connection is made.
  const [link] = await Promise.all([
    DiscordVoiceLink.join({ guildId: server.info.guildId, channelId: server.info.channelId, adapterCreator: mainGateway(server.info), logger }),
    warmUpLiveSpeech(),
  ]);
  try {
    const encrypted = link.connection?.voicePrivacyCode !== undefined;
    const [cold, ...warm] = await firstPacketLatencies(link, LATENCY_RUNS + 1);
    const packetsBefore = await server.packets();
    const cpu = await liveCpu(link, CPU_SECONDS);
    const packets = (await server.packets()) - packetsBefore;
    const perMinute = (ms: number) => (ms * 60) / CPU_SECONDS;
    const ok = (pass: boolean) => (pass ? 'yes' : '**no**');
    const latency = median(warm);
    const markdown = [
      '## Voice channels: live /say into a Discord voice connection',
      '',
      'The real path: service pcm16 stream (the emulator, 100 ms chunks) → eager read → 24→48 kHz stereo → Opus → ' +
        '@discordjs/voice AudioPlayer → connection (DAVE E2EE' +
        (encrypted ? ', active' : ', **not active**') +
        ', AES-256-GCM transport) → UDP to the fake ' +
        'voice server in a worker thread. "Handed to the connection" is the player\'s `prepareAudioPacket` call; the player ' +
        'runs on a 20 ms cycle, so up to 20 ms of the latency is waiting for its next step. ' +
        `Load average at the end: ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores.`,
      '',
      '| measure | result | goal | met |',
      '| --- | --- | --- | --- |',
      `| first pcm16 chunk received → first Opus packet handed to the connection, median of ${LATENCY_RUNS} /say | ${latency.toFixed(1)} ms (min ${Math.min(...warm).toFixed(1)}, max ${Math.max(...warm).toFixed(1)} ms) | ≤ 30 ms | ${ok(latency <= 30)} |`,
      `| same, first /say in the process | ${cold!.toFixed(1)} ms | ≤ 30 ms | ${ok(cold! <= 30)} |`,
      `| main-thread CPU per minute of live speech (${CPU_SECONDS} s played in real time, ${packets} packets received) | ${perMinute(cpu.cpuMs).toFixed(0)} ms (${((100 * cpu.cpuMs) / cpu.wallMs).toFixed(2)} % of one core) | | |`,
      `| of which resampling + Opus encoding (same audio, offline) | ${perMinute(cpu.encodeOnlyMs).toFixed(0)} ms | | |`,
    ].join('\n');
    return { markdown };
  } finally {
    link.leave();
    await server.close();
  }
}
