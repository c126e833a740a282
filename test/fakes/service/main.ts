import { parseArgs } from 'node:util';
import { startEmulator } from './emulator.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    key: { type: 'string' },
    pace: { type: 'string' },
    'tts-chunk-ms': { type: 'string' },
    alt: { type: 'string' },
    brand: { type: 'string' },
    help: { type: 'boolean' },
  },
});

if (values.help) {
  console.log(`Usage: npm run emulator -- [--port N] [--host H] [--key K] [--pace TOKENS_PER_S] [--tts-chunk-ms MS] [--alt SEGMENT] [--brand NAME]
Environment: EMULATOR_PORT (or PORT), EMULATOR_HOST, EMULATOR_KEY, EMULATOR_PACE, EMULATOR_TTS_CHUNK_MS, EMULATOR_ALT, EMULATOR_BRAND.`);
  process.exit(0);
}

const env = process.env;
const number = (text: string | undefined, fallback: number) => (text === undefined || text === '' ? fallback : Number(text));

const emulator = await startEmulator({
  host: values.host ?? env.EMULATOR_HOST ?? '127.0.0.1',
  port: number(values.port ?? env.EMULATOR_PORT ?? env.PORT, 8787),
  apiKey: values.key ?? env.EMULATOR_KEY ?? 'emulator-key',
  altPrefix: values.alt ?? env.EMULATOR_ALT,
  brand: values.brand ?? env.EMULATOR_BRAND,
  // Interactive use streams at a readable speed; tests default to no pacing.
  pace: {
    tokensPerSecond: number(values.pace ?? env.EMULATOR_PACE, 40),
    ttsChunkIntervalMs: number(values['tts-chunk-ms'] ?? env.EMULATOR_TTS_CHUNK_MS, 100),
  },
});

console.log(`Service emulator listening.
  Base URL: ${emulator.url}
  API key:  ${emulator.apiKey}
  Chat:     POST ${emulator.chatCompletionsUrl}
  Messages: POST ${emulator.messagesUrl}
  Models:   ${emulator.models.map((m) => m.id).join(', ')}
Magic prompts and fault injection: test/fakes/service/README.md`);

const stop = () => {
  void emulator.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
