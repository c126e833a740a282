import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from './emulator.ts';
import type { Emulator } from './emulator.ts';
import { chatChunks, parseSse, post, postChat } from './test-http.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu.close());

const speak = (text: string, voice = 'svc_default', stream = false) => ({
  model: 'svc-v2-tts',
  stream,
  audio: { format: stream ? 'pcm16' : 'wav', voice },
  messages: [
    { role: 'user', content: 'Read this warmly.' },
    { role: 'assistant', content: text },
  ],
});

/** Header fields and samples of a canonical 44-byte-header PCM WAV, read independently of the emulator. */
function readWav(wav: Buffer) {
  expect(wav.toString('latin1', 0, 4)).toBe('RIFF');
  expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
  expect(wav.toString('latin1', 8, 16)).toBe('WAVEfmt ');
  expect(wav.toString('latin1', 36, 40)).toBe('data');
  expect(wav.readUInt32LE(40)).toBe(wav.length - 44);
  return {
    format: wav.readUInt16LE(20),
    channels: wav.readUInt16LE(22),
    sampleRate: wav.readUInt32LE(24),
    bits: wav.readUInt16LE(34),
    pcm: wav.subarray(44),
  };
}

function rms(pcm: Buffer): number {
  let sum = 0;
  for (let i = 0; i + 1 < pcm.length; i += 2) sum += pcm.readInt16LE(i) ** 2;
  return Math.sqrt(sum / (pcm.length / 2));
}

async function wavOf(text: string, voice?: string) {
  const body = await postChat(emu, speak(text, voice));
  return readWav(Buffer.from(body.choices[0].message.audio.data, 'base64'));
}

describe('speech synthesis', () => {
  it('returns a 24 kHz mono 16-bit WAV, 60 ms per spoken character, audibly not silent', async () => {
    const wav = await wavOf('Hello there');
    expect(wav).toMatchObject({ format: 1, channels: 1, sampleRate: 24000, bits: 16 });
    expect(wav.pcm.length / 2 / 24000).toBeCloseTo(10 * 0.06, 6);
    expect(rms(wav.pcm)).toBeGreaterThan(2000);
  });

  it('speaks inline cues silently, follows speed styles and varies by voice', async () => {
    const plain = (await wavOf('Hello there')).pcm;
    expect((await wavOf('Hello [cough] there (sudden laugh)')).pcm.equals(plain)).toBe(true);
    expect((await wavOf('<style>speed up</style>Hello there')).pcm.length).toBeLessThan(plain.length);
    expect((await wavOf('<style>sad slow down</style>Hello there')).pcm.length).toBeGreaterThan(plain.length);
    expect((await wavOf('Hello there', 'default_en')).pcm.equals(plain)).toBe(false);
    expect((await wavOf('<style>唱歌</style>Hello there')).pcm.equals(plain)).toBe(false);
  });

  it('streams pcm16 in odd-sized chunks among choice-less chunks that join into the same audio', async () => {
    const text = 'A sentence long enough to need a good number of audio chunks.';
    const expected = (await wavOf(text)).pcm;
    const { chunks, done } = await chatChunks(await post(emu, '/v1/chat/completions', speak(text, 'svc_default', true)));
    expect(done).toBe(true);
    const audio = chunks.filter((c) => c.choices?.[0]?.delta.audio).map((c) => Buffer.from(c.choices[0].delta.audio.data, 'base64'));
    expect(audio.length).toBeGreaterThan(5);
    expect(audio.some((a) => a.length % 2 === 1)).toBe(true);
    expect(chunks.some((c) => !('choices' in c))).toBe(true);
    expect(Buffer.concat(audio).equals(expected)).toBe(true);
    expect(chunks.find((c) => c.choices?.[0]?.finish_reason)!.choices[0].finish_reason).toBe('stop');
  });

  it('sends the first audio long before synthesis has finished when paced', async () => {
    emu.pace.ttsChunkIntervalMs = 40;
    try {
      const started = Date.now();
      const response = await post(emu, '/v1/chat/completions', speak('First audio early.', 'default_zh', true));
      const decoder = new TextDecoder();
      let text = '';
      let firstAudioAt: number | undefined;
      for await (const chunk of response.body!) {
        text += decoder.decode(chunk, { stream: true });
        if (firstAudioAt === undefined && text.includes('"audio"')) firstAudioAt = Date.now() - started;
      }
      const total = Date.now() - started;
      const audioChunks = parseSse(text).filter((m) => m.data.includes('"audio"')).length;
      expect(total).toBeGreaterThan((audioChunks - 1) * 40 * 0.9);
      expect(firstAudioAt!).toBeLessThan(total / 4);
    } finally {
      emu.pace.ttsChunkIntervalMs = 0;
    }
  });
});
