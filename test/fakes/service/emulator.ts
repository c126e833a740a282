import type { AddressInfo } from 'node:net';
import type { Transcriber } from './asr.ts';
import type { Fault } from './faults.ts';
import { defaultModels, defaultVoices } from './models.ts';
import type { ModelSpec } from './models.ts';
import type { Pace } from './pacing.ts';
import { createEmulatorServer } from './server.ts';
import { SpeechRecognizer } from './speech-recognizer.ts';
import type { EmulatorState, RecordedRequest } from './state.ts';
import { PromptCache } from './usage.ts';

export type { TranscriptQuery, Transcriber } from './asr.ts';
export type { Fault, StreamFault } from './faults.ts';
export { defaultModels, defaultVoices } from './models.ts';
export type { ModelSpec } from './models.ts';
export type { Pace } from './pacing.ts';
export { SpeechRecognizer } from './speech-recognizer.ts';
export type { RecordedRequest } from './state.ts';
export { unicodeReply } from './text-answer.ts';

export interface EmulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (ephemeral). */
  port?: number;
  /** Default `emulator-key`. */
  apiKey?: string;
  /** The `<alt>` path segment of the messages endpoint. Default `anthropic`. */
  altPrefix?: string;
  /** Replaces the spec's `svc` placeholder in default model ids and voice names. Default `svc`. */
  brand?: string;
  /** The model table. Default defaultModels(brand). */
  models?: ModelSpec[];
  /** Accepted `audio.voice` values, in pitch order. Default defaultVoices(brand). */
  voices?: string[];
  /** Default { tokensPerSecond: 0, ttsChunkIntervalMs: 0 } (no pacing). */
  pace?: Partial<Pace>;
  /** Speech-recognition transcripts by sha256 hex of the decoded audio bytes. */
  transcripts?: Map<string, string>;
  /** Consulted when neither `transcripts` nor the recognizer knows the audio. */
  transcribe?: Transcriber;
  /** Bodies larger than this get 413. Default 256 MiB. */
  maxBodyBytes?: number;
}

export interface Emulator {
  /** Base URL without trailing slash, e.g. http://127.0.0.1:43127 */
  url: string;
  apiKey: string;
  chatCompletionsUrl: string;
  messagesUrl: string;
  models: ModelSpec[];
  voices: string[];
  /** Every request received, oldest first. */
  requests: RecordedRequest[];
  /** Faults waiting for matching requests; push to inject. */
  faults: Fault[];
  /** Mutable pacing. */
  pace: Pace;
  /** Mutable transcript registry (sha256 hex of audio bytes → transcript). */
  transcripts: Map<string, string>;
  /** Recognizes registered recordings in WAV audio however it was re-encoded; consulted after `transcripts`. */
  recognizer: SpeechRecognizer;
  /** Clears requests, faults, the prompt cache and remembered reasoning. */
  reset(): void;
  /** Stops listening and drops open connections (stalled streams included). */
  close(): Promise<void>;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const brand = options.brand ?? 'svc';
  const recognizer = new SpeechRecognizer();
  const hook = options.transcribe;
  const state: EmulatorState = {
    apiKey: options.apiKey ?? 'emulator-key',
    altPrefix: options.altPrefix ?? 'anthropic',
    models: options.models ?? defaultModels(brand),
    voices: options.voices ?? defaultVoices(brand),
    pace: { tokensPerSecond: 0, ttsChunkIntervalMs: 0, ...options.pace },
    transcripts: options.transcripts ?? new Map(),
    transcriber: (query) => recognizer.transcribe(query) ?? hook?.(query),
    requests: [],
    faults: [],
    promptCache: new PromptCache(),
    reasoningSent: new Map(),
    maxBodyBytes: options.maxBodyBytes ?? 256 * 1024 * 1024,
  };
  const server = createEmulatorServer(state);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    apiKey: state.apiKey,
    chatCompletionsUrl: `${url}/v1/chat/completions`,
    messagesUrl: `${url}/${state.altPrefix}/v1/messages`,
    models: state.models,
    voices: state.voices,
    requests: state.requests,
    faults: state.faults,
    pace: state.pace,
    transcripts: state.transcripts,
    recognizer,
    reset() {
      state.requests.length = 0;
      state.faults.length = 0;
      state.promptCache.clear();
      state.reasoningSent.clear();
    },
    close() {
      return new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
