import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { speechText } from '../../src/capabilities/speech-text.ts';
import { PCM16_SAMPLE_RATE, synthesize, synthesizeStream } from '../../src/capabilities/synthesize.ts';
import { readWav } from '../../src/media/wav.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';
import { depsFor, lastBody } from './harness.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu.close());
afterEach(() => emu.reset());

describe('speechText', () => {
  it('puts one style tag at the very start, merging one already there', () => {
    expect(speechText('Hello there')).toBe('Hello there');
    expect(speechText('Hello', 'whisper')).toBe('<style>whisper</style>Hello');
    expect(speechText('Hello', ['happy', 'speed up'])).toBe('<style>happy speed up</style>Hello');
    expect(speechText('<style>sad</style> Hello', 'slow')).toBe('<style>sad slow</style>Hello');
    expect(speechText('Hi', '<b>bold</b>')).toBe('<style>bbold/b</style>Hi');
  });

  it('makes singing the only tag', () => {
    expect(speechText('La la la', 'happy', true)).toBe('<style>sing</style>La la la');
    expect(speechText('<style>sad</style>La la', undefined, true)).toBe('<style>sing</style>La la');
  });
});

describe('synthesize', () => {
  it('speaks the text from an assistant message, with an optional user instruction, and returns a WAV', async () => {
    const deps = depsFor(emu, { TTS_VOICE: 'default_en' });
    const speech = await synthesize(deps, { text: 'Good morning [cough] everyone', style: 'happy', instruction: 'Sound cheerful.' });
    expect(lastBody(emu)).toMatchObject({
      model: 'svc-v2-tts',
      audio: { format: 'wav', voice: 'default_en' },
      messages: [
        { role: 'user', content: 'Sound cheerful.' },
        { role: 'assistant', content: '<style>happy</style>Good morning [cough] everyone' },
      ],
    });
    const audio = readWav(speech.wav);
    expect(audio.sampleRate).toBe(24_000);
    expect(audio.channels[0]!.length).toBeGreaterThan(24_000 / 2);
    await deps.client.close();
  });

  it('refuses empty text without calling the service', async () => {
    const deps = depsFor(emu);
    await expect(synthesize(deps, { text: '  ', style: 'happy' })).rejects.toMatchObject({ code: 'empty' });
    expect(emu.requests).toHaveLength(0);
    await deps.client.close();
  });
});

describe('synthesizeStream', () => {
  it('yields whole 16-bit samples from odd-sized pcm16 chunks, joining to the same audio as the WAV', async () => {
    const deps = depsFor(emu);
    const text = 'Streaming speech test';
    const chunks: Buffer[] = [];
    for await (const chunk of synthesizeStream(deps, { text, voice: 'default_zh', sing: true })) chunks.push(chunk);
    expect(lastBody(emu)).toMatchObject({
      stream: true,
      audio: { format: 'pcm16', voice: 'default_zh' },
      messages: [{ role: 'assistant', content: `<style>sing</style>${text}` }],
    });
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) expect(chunk.length % 2).toBe(0);
    const pcm = Buffer.concat(chunks);

    const { wav } = await synthesize(deps, { text, voice: 'default_zh', sing: true });
    expect(readWav(wav).channels[0]!.length).toBe(pcm.length / 2);
    expect(wav.subarray(wav.length - pcm.length).equals(pcm)).toBe(true);
    expect(PCM16_SAMPLE_RATE).toBe(readWav(wav).sampleRate);
    await deps.client.close();
  });

  it('closes the request when the consumer stops early', async () => {
    const deps = depsFor(emu);
    emu.pace.ttsChunkIntervalMs = 20;
    try {
      let got = 0;
      for await (const chunk of synthesizeStream(deps, { text: 'A long sentence to speak slowly for the test' })) {
        got += chunk.length;
        break;
      }
      expect(got).toBeGreaterThan(0);
      const log = deps.lines.map((l) => JSON.parse(l) as Record<string, unknown>).at(-1);
      expect(log).toMatchObject({ capability: 'synthesize_stream', outcome: 'stopped' });
    } finally {
      emu.pace.ttsChunkIntervalMs = 0;
      await deps.client.close();
    }
  });
});
