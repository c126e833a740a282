import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from './emulator.ts';
import type { Emulator, TranscriptQuery } from './emulator.ts';
import { dataUrl, mp3Bytes, wavBytes } from './media-fixtures.ts';
import { chatChunks, post, postChat, streamedText } from './test-http.ts';

let emu: Emulator;
const hooked: TranscriptQuery[] = [];
beforeAll(async () => {
  emu = await startEmulator({
    transcribe: (audio) => {
      hooked.push(audio);
      return audio.seconds > 30 ? 'a long recording' : undefined;
    },
  });
});
afterAll(() => emu.close());

const asr = (mime: string, bytes: Buffer, extra: object = {}) => ({
  model: 'svc-v2.5-asr',
  messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: dataUrl(mime, bytes) } }] }],
  ...extra,
});

describe('speech recognition', () => {
  it('transcribes a WAV by its duration and language, with audio usage', async () => {
    const body = await postChat(emu, asr('audio/wav', wavBytes(3.25), { asr_options: { language: 'en' } }));
    expect(body.choices[0].message).toEqual({
      role: 'assistant',
      content: 'Transcript of 3.25 s of audio (language: en).',
      tool_calls: null,
      audio: null,
      audio_tokens: [],
    });
    expect(body.usage.seconds).toBe(4);
    expect(body.usage.prompt_tokens_details.audio_tokens).toBe(82);
  });

  it('measures MP3 under both MIME names and detects the language when none is set', async () => {
    const seconds = ((200 * 1152) / 44100).toFixed(2);
    for (const mime of ['audio/mpeg', 'audio/mp3']) {
      const body = await postChat(emu, asr(mime, mp3Bytes(200)));
      expect(body.choices[0].message.content).toBe(`Transcript of ${seconds} s of audio (language: auto).`);
    }
  });

  it('takes transcripts from the registry by sha256, then from the hook', async () => {
    const wav = wavBytes(1);
    emu.transcripts.set(createHash('sha256').update(wav).digest('hex'), '你好，世界');
    expect((await postChat(emu, asr('audio/wav', wav))).choices[0].message.content).toBe('你好，世界');
    expect((await postChat(emu, asr('audio/wav', wavBytes(31)))).choices[0].message.content).toBe('a long recording');
    expect(hooked.at(-1)).toMatchObject({ format: 'wav', language: 'auto' });
  });

  it('streams the transcript in chunks', async () => {
    const { chunks, done } = await chatChunks(await post(emu, '/v1/chat/completions', asr('audio/wav', wavBytes(2), { stream: true })));
    expect(done).toBe(true);
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBeGreaterThan(3);
    expect(streamedText(chunks)).toBe('Transcript of 2.00 s of audio (language: auto).');
    expect(chunks.at(-1)!.usage.seconds).toBe(2);
  });
});
