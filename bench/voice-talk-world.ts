import type { DiscordGatewayAdapterCreator } from '@discordjs/voice';
import { Worker } from 'node:worker_threads';
import { workerAnswer } from './worker-answer.ts';

interface WorldInfo {
  endpoint: string;
  certificatePem: string;
  guildId: string;
  channelId: string;
  userId: string;
  stateUpdate: unknown;
  serverUpdate: unknown;
  apiUrl: string;
  apiKey: string;
}

export interface ServiceLatencies {
  /** Before the first byte of a speech recognition's response. */
  asrMs: number;
  /** Before the first byte of a chat response. */
  firstTokenMs: number;
  tokensPerSecond: number;
  /** Before the first byte of a speech synthesis's response. */
  ttsFirstByteMs: number;
  /** Between its audio chunks. */
  ttsChunkIntervalMs: number;
}

/** The other machines of a voice conversation, in a worker thread so that the main thread's CPU is Herald's alone. */
export interface VoiceTalkWorld {
  info: WorldInfo;
  /** The user says a talk fixture into the call in real time (Discord's client: voice-activity gated, Opus, DAVE). */
  say(fixture: string): Promise<void>;
  /** What speech recognition hears in every turn from now on. */
  setTranscript(text: string): Promise<void>;
  /** How slow the service is from now on. */
  setLatencies(latencies: ServiceLatencies): Promise<void>;
  close(): Promise<void>;
}

/** The fake Discord voice server (one user in the call) and the service emulator, in a worker thread. */
export function startVoiceTalkWorld(): Promise<VoiceTalkWorld> {
  const voiceModule = new URL('../test/fakes/discord-voice/index.ts', import.meta.url).href;
  const emulatorModule = new URL('../test/fakes/service/emulator.ts', import.meta.url).href;
  const worker = new Worker(
    `
    const { parentPort } = require('node:worker_threads');
    Promise.all([import(${JSON.stringify(voiceModule)}), import(${JSON.stringify(emulatorModule)})]).then(async ([voice, service]) => {
      const userId = voice.snowflake();
      const server = await voice.startFakeVoiceServer({ users: [userId], trustCertificate: false });
      let transcript = 'Herald, what is the capital of France?';
      const emulator = await service.startEmulator({ transcribe: () => transcript });
      parentPort.on('message', async (message) => {
        if (message.say) {
          await server.speak(userId, voice.talkFixture(message.say));
          parentPort.postMessage({ said: true });
        }
        if (message.transcript) {
          transcript = message.transcript;
          parentPort.postMessage({ set: true });
        }
        if (message.latencies) {
          const { asrMs, firstTokenMs, ttsFirstByteMs, tokensPerSecond, ttsChunkIntervalMs } = message.latencies;
          emulator.faults.length = 0;
          for (const model of emulator.models) {
            const delayMs = model.asr ? asrMs : model.tts ? ttsFirstByteMs : firstTokenMs;
            if (delayMs > 0) emulator.faults.push({ model: model.id, delayMs, times: Number.MAX_SAFE_INTEGER });
          }
          Object.assign(emulator.pace, { tokensPerSecond, ttsChunkIntervalMs });
          parentPort.postMessage({ set: true });
        }
        if (message === 'close') {
          await server.close();
          await emulator.close();
          parentPort.postMessage({ closed: true });
        }
      });
      parentPort.postMessage({ info: {
        endpoint: server.endpoint, certificatePem: server.certificatePem, guildId: server.guildId, channelId: server.channelId,
        userId, stateUpdate: server.voiceStateUpdate(), serverUpdate: server.voiceServerUpdate(),
        apiUrl: emulator.url, apiKey: emulator.apiKey,
      } });
    });
    `,
    { eval: true },
  );
  const next = <T>(key: string) => workerAnswer<T>(worker, key);
  const ask = async (message: unknown, key: string) => {
    const answer = next(key);
    worker.postMessage(message);
    await answer;
  };
  return next<WorldInfo>('info').then((info) => ({
    info,
    say: (fixture) => ask({ say: fixture }, 'said'),
    setTranscript: (text) => ask({ transcript: text }, 'set'),
    setLatencies: (latencies) => ask({ latencies }, 'set'),
    close: async () => {
      await ask('close', 'closed');
      await worker.terminate();
    },
  }));
}

/**
 * A stand-in for discord.js's voice adapter, answering as Discord's gateway does: joining brings the bot's voice
 * state and the voice server; a later change of the bot's own state (deafening) brings only the new voice state.
 */
export function worldGateway(info: WorldInfo): DiscordGatewayAdapterCreator {
  return (methods) => {
    let joined = false;
    return {
      sendPayload(payload) {
        const { channel_id: channelId, self_deaf: selfDeaf } = (payload as { d: { channel_id: string | null; self_deaf: boolean } }).d;
        if (!channelId) return true;
        const state = { ...(info.stateUpdate as Parameters<typeof methods.onVoiceStateUpdate>[0]), self_deaf: selfDeaf };
        const first = !joined;
        joined = true;
        setImmediate(() => {
          methods.onVoiceStateUpdate(state);
          if (first) methods.onVoiceServerUpdate(info.serverUpdate as Parameters<typeof methods.onVoiceServerUpdate>[0]);
        });
        return true;
      },
      destroy() {},
    };
  };
}
