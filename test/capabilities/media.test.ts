import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describe as describeImages } from '../../src/capabilities/describe.ts';
import { transcribe } from '../../src/capabilities/transcribe.ts';
import { MediaError } from '../../src/errors.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';
import { imageBytes, mp3Bytes, wavBytes } from '../fakes/service/media-fixtures.ts';
import { collect, textOf } from '../service/harness.ts';
import { depsFor, lastBody } from './harness.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu.close());
afterEach(() => emu.reset());

describe('describe', () => {
  it('sends several images as data URLs with the question, to VISION_MODEL', async () => {
    const deps = depsFor(emu, { VISION_MODEL: 'svc-v2-omni' });
    const png = await imageBytes('png', 64, 48);
    const jpeg = await imageBytes('jpeg', 32, 32);
    const deltas = await collect(
      describeImages(deps, {
        images: [
          { mime: 'image/png', data: png },
          { mime: 'image/jpeg', data: jpeg },
        ],
        prompt: 'Which is wider?',
      }),
    );
    const body = lastBody(emu);
    expect(body.model).toBe('svc-v2-omni');
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
          { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${jpeg.toString('base64')}` } },
          { type: 'text', text: 'Which is wider?' },
        ],
      },
    ]);
    expect(textOf(deltas)).toContain('I see 2 images.\nImage 1: image/png 64x48\nImage 2: image/jpeg 32x32');
    await deps.client.close();
  });

  it('asks for a description when the user asked nothing, and passes URLs through', async () => {
    const deps = depsFor(emu);
    await describeImages(deps, { images: [{ url: 'https://images.example.com/cat.jpg' }] }).finalResult();
    expect(lastBody(emu).messages[0].content).toEqual([
      { type: 'image_url', image_url: { url: 'https://images.example.com/cat.jpg' } },
      { type: 'text', text: 'Describe this image: what it shows, any text in it, and anything notable.' },
    ]);
    await deps.client.close();
  });

  it('uses base64 image blocks without the data-URL prefix in the messages format, and can skip streaming', async () => {
    const deps = depsFor(emu, { API_FORMAT: 'messages' });
    const gif = await imageBytes('gif', 10, 20);
    const deltas = await collect(describeImages(deps, { images: [{ mime: 'image/gif', data: gif }], stream: false }));
    const request = emu.requests.at(-1)!;
    expect(request.path).toBe('/anthropic/v1/messages');
    expect(request.body).toMatchObject({
      stream: false,
      messages: [
        { content: [{ type: 'image', source: { type: 'base64', media_type: 'image/gif', data: gif.toString('base64') } }, { type: 'text' }] },
      ],
    });
    expect(textOf(deltas)).toContain('Image 1: image/gif 10x20');
    expect(deltas.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
    await deps.client.close();
  });

  it('refuses unsupported formats and images over 50 MB of Base64 before sending anything', async () => {
    const deps = depsFor(emu);
    expect(() => describeImages(deps, { images: [{ mime: 'image/heic', data: Buffer.alloc(10) }] })).toThrow(MediaError);
    const huge = Buffer.alloc(Math.ceil((50 * 1024 * 1024) / 4) * 3 + 1);
    const error = (() => {
      try {
        describeImages(deps, {
          images: [
            { mime: 'image/png', data: Buffer.alloc(5) },
            { mime: 'image/png', data: huge },
          ],
        });
      } catch (e) {
        return e as MediaError;
      }
    })();
    expect(error).toMatchObject({ code: 'too_large', message: 'Image 2 is too large for the AI service: 50.0 MB once encoded, the limit is 50 MB.' });
    expect(emu.requests).toHaveLength(0);
    await deps.client.close();
  });
});

describe('transcribe', () => {
  it('sends WAV as an input_audio data URL with the language, and returns text and seconds', async () => {
    const deps = depsFor(emu);
    const wav = wavBytes(2.5);
    emu.transcripts.set(createHash('sha256').update(wav).digest('hex'), '  Hello from the voice note.  ');
    const result = await transcribe(deps, { audio: { mime: 'audio/wav', data: wav }, language: 'en' });
    expect(result.text).toBe('Hello from the voice note.');
    expect(result.usage.audioSeconds).toBe(3);
    expect(lastBody(emu)).toMatchObject({
      model: 'svc-v2.5-asr',
      stream: false,
      asr_options: { language: 'en' },
      messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: `data:audio/wav;base64,${wav.toString('base64')}` } }] }],
    });
    await deps.client.close();
  });

  it('accepts MP3 and leaves the language to the service when not given', async () => {
    const deps = depsFor(emu);
    const result = await transcribe(deps, { audio: { mime: 'audio/mpeg', data: mp3Bytes(40) } });
    expect(result.text).toMatch(/^Transcript of 1\.0\d s of audio \(language: auto\)\.$/);
    expect(lastBody(emu).asr_options).toBeUndefined();
    await deps.client.close();
  });

  it('refuses audio over 10 MB of Base64 with a clear message, before sending', async () => {
    const deps = depsFor(emu);
    const tooBig = Buffer.alloc(8 * 1024 * 1024);
    const error = await transcribe(deps, { audio: { mime: 'audio/wav', data: tooBig } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaError);
    expect(error).toMatchObject({
      code: 'too_large',
      message: 'The recording is too large for the AI service: 10.7 MB once encoded, the limit is 10 MB.',
    });
    const wrong = await transcribe(deps, { audio: { mime: 'audio/ogg' as 'audio/wav', data: Buffer.alloc(4) } }).catch((e: unknown) => e);
    expect(wrong).toMatchObject({ code: 'unsupported_format' });
    expect(emu.requests).toHaveLength(0);
    await deps.client.close();
  });
});
