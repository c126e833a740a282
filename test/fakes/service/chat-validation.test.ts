import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultModels, startEmulator } from './emulator.ts';
import type { Emulator } from './emulator.ts';
import { dataUrl, imageBytes, wavBytes } from './media-fixtures.ts';
import { jsonOf, post } from './test-http.ts';

let emu: Emulator;
let png: Buffer;
beforeAll(async () => {
  emu = await startEmulator({
    models: [
      ...defaultModels(),
      { id: 'svc-v2-mini', chat: true, vision: false, asr: false, tts: false, webSearch: false, thinkingByDefault: false },
    ],
  });
  png = await imageBytes('png', 40, 30);
});
afterAll(() => emu.close());

const user = (content: unknown) => [{ role: 'user', content }];
const imagePart = (url: string) => ({ type: 'image_url', image_url: { url } });
const audioPart = (data: string) => ({ type: 'input_audio', input_audio: { data } });
const webSearch = { type: 'web_search', max_keyword: 2, force_search: true, limit: 3 };

async function expect400(body: unknown, pattern: RegExp, path = '/v1/chat/completions'): Promise<void> {
  const response = await post(emu, path, body);
  const text = await response.text();
  expect(response.status, text).toBe(400);
  const error = JSON.parse(text).error;
  expect(error.type).toBe('invalid_request_error');
  expect(error.message).toMatch(pattern);
}

describe('request shape', () => {
  it('rejects a body that is not JSON', () => expect400('{"model": ', /not valid JSON/));
  it('requires model', () => expect400({ messages: user('hi') }, /"model" field is required/));
  it('requires messages', () => expect400({ model: 'svc-v2-flash' }, /"messages" field is required/));
  it('requires a non-empty messages array', () => expect400({ model: 'svc-v2-flash', messages: [] }, /non-empty/));
  it('rejects an unknown role', () => expect400({ model: 'svc-v2-flash', messages: [{ role: 'bot', content: 'x' }] }, /role/));
  it('rejects an unknown content part', () => expect400({ model: 'svc-v2-flash', messages: user([{ type: 'video', video: {} }]) }, /type must be/));

  it('answers 404 model_not_found for an unknown model', async () => {
    const response = await post(emu, '/v1/chat/completions', { model: 'svc-v9', messages: user('hi') });
    expect(response.status).toBe(404);
    expect((await jsonOf(response)).error).toMatchObject({ code: 'model_not_found', message: expect.stringContaining('svc-v9') });
  });

  it('takes model ids from its table, with the brand replacing svc', async () => {
    const branded = await startEmulator({ brand: 'acme' });
    try {
      expect(branded.models.map((m) => m.id)).toContain('acme-v2.5-pro');
      expect((await post(branded, '/v1/chat/completions', { model: 'acme-v2.5-pro', messages: user('hi') })).status).toBe(200);
      expect((await post(branded, '/v1/chat/completions', { model: 'svc-v2.5-pro', messages: user('hi') })).status).toBe(404);
    } finally {
      await branded.close();
    }
  });
});

describe('capabilities by model', () => {
  it('accepts image parts on svc-v2.5 and svc-v2-omni only', async () => {
    const content = [imagePart(dataUrl('image/png', png)), { type: 'text', text: 'what is this?' }];
    for (const model of ['svc-v2.5', 'svc-v2-omni']) {
      expect((await post(emu, '/v1/chat/completions', { model, messages: user(content) })).status).toBe(200);
    }
    await expect400({ model: 'svc-v2.5-pro', messages: user(content) }, /does not accept image input; use one of svc-v2.5, svc-v2-omni/);
  });

  it('accepts input_audio on svc-v2.5-asr only', () =>
    expect400(
      { model: 'svc-v2.5', messages: user([audioPart(dataUrl('audio/wav', wavBytes(0.5)))]) },
      /does not accept input_audio; use svc-v2.5-asr/,
    ));

  it('accepts the audio object on svc-v2-tts only', () =>
    expect400({ model: 'svc-v2.5-pro', audio: { format: 'wav', voice: 'svc_default' }, messages: user('hi') }, /only accepted by svc-v2-tts/));

  it('accepts asr_options on the ASR model only', () =>
    expect400({ model: 'svc-v2-flash', asr_options: { language: 'en' }, messages: user('hi') }, /asr_options/));

  it('accepts the web_search tool on the five search models only', async () => {
    for (const model of ['svc-v2.5-pro', 'svc-v2.5', 'svc-v2-pro', 'svc-v2-omni', 'svc-v2-flash']) {
      expect((await post(emu, '/v1/chat/completions', { model, tools: [webSearch], messages: user('news') })).status).toBe(200);
    }
    await expect400({ model: 'svc-v2-mini', tools: [webSearch], messages: user('news') }, /web_search tool is not supported by model svc-v2-mini/);
  });

  it('refuses web search on the messages endpoint', () =>
    expect400(
      { model: 'svc-v2.5-pro', max_tokens: 10, tools: [webSearch], messages: user('news') },
      /not supported on the messages endpoint/,
      '/anthropic/v1/messages',
    ));
});

describe('images', () => {
  const vision = (url: string) => ({ model: 'svc-v2.5', messages: user([imagePart(url)]) });

  it('accepts JPEG, PNG, GIF, WebP and BMP MIME types only', async () => {
    await expect400(vision(dataUrl('image/svg+xml', Buffer.from('<svg/>'))), /image\/svg\+xml is not supported/);
    await expect400(vision(dataUrl('image/tiff', png)), /image\/tiff is not supported/);
  });

  it('requires the data URL to state the real MIME type', () =>
    expect400(vision(dataUrl('image/jpeg', png)), /declared as image\/jpeg but the data is image\/png/));
  it('requires a data URL of the documented form', () => expect400(vision(`data:image/png,${png.toString('base64')}`), /data URL of the form/));
  it('requires pure Base64', () => expect400(vision(`data:image/png;base64,${png.toString('base64')}\n`), /pure Base64/));

  it('accepts exactly 50 MB of Base64 and refuses one block more', async () => {
    const limit = 50 * 1024 * 1024;
    const padded = Buffer.concat([png, Buffer.alloc((limit / 4) * 3 - png.length)]);
    expect(padded.toString('base64')).toHaveLength(limit);
    expect((await post(emu, '/v1/chat/completions', vision(dataUrl('image/png', padded)))).status).toBe(200);
    await expect400(vision(`data:image/png;base64,${'A'.repeat(limit + 4)}`), /limit is 50 MB/);
  });
});

describe('speech recognition input', () => {
  const asr = (data: string, extra: object = {}) => ({ model: 'svc-v2.5-asr', messages: user([audioPart(data)]), ...extra });

  it('accepts audio/wav, audio/mpeg and audio/mp3 only', () => expect400(asr(dataUrl('audio/ogg', wavBytes(0.2))), /audio\/ogg is not supported/));
  it('refuses a WAV label on other data', () => expect400(asr(dataUrl('audio/wav', png)), /not a WAV file/));
  it('accepts only auto, zh and en as language', () =>
    expect400(asr(dataUrl('audio/wav', wavBytes(0.2)), { asr_options: { language: 'fr' } }), /language/));
  it('needs an audio part', () => expect400({ model: 'svc-v2.5-asr', messages: user('hello') }, /needs an input_audio part/));

  it('accepts exactly 10 MB of Base64 and refuses more', async () => {
    const limit = 10 * 1024 * 1024;
    const wav = wavBytes(((limit / 4) * 3 - 44) / 2 / 16000);
    expect(wav.toString('base64')).toHaveLength(limit);
    expect((await post(emu, '/v1/chat/completions', asr(dataUrl('audio/wav', wav)))).status).toBe(200);
    await expect400(asr(dataUrl('audio/wav', Buffer.concat([wav, Buffer.alloc(3)]))), /limit is 10 MB/);
  });
});

describe('speech synthesis input', () => {
  const tts = (audio: unknown, messages: unknown[], stream = false) => ({ model: 'svc-v2-tts', audio, stream, messages });
  const spoken = [{ role: 'assistant', content: 'Hello there' }];

  it('needs the text in an assistant message, not a user message', () =>
    expect400(tts({ format: 'wav', voice: 'svc_default' }, user('Hello there')), /assistant message/));
  it('needs the audio object', () => expect400({ model: 'svc-v2-tts', messages: spoken }, /needs the "audio" object/));
  it('takes wav without streaming', () => expect400(tts({ format: 'pcm16', voice: 'svc_default' }, spoken), /use "wav"/));
  it('takes pcm16 when streaming', () => expect400(tts({ format: 'wav', voice: 'svc_default' }, spoken, true), /use "pcm16"/));
  it('knows three voices', async () => {
    await expect400(tts({ format: 'wav', voice: 'alloy' }, spoken), /svc_default, default_zh, default_en/);
    for (const voice of ['svc_default', 'default_zh', 'default_en']) {
      expect((await post(emu, '/v1/chat/completions', tts({ format: 'wav', voice }, spoken))).status).toBe(200);
    }
  });
});

describe('tool messages', () => {
  const call = { id: 'call_1', type: 'function', function: { name: 'get_time', arguments: '{}' } };
  it('refuses a tool message that answers no call', () =>
    expect400(
      { model: 'svc-v2-flash', messages: [...user('hi'), { role: 'tool', tool_call_id: 'call_9', content: 'x' }] },
      /must answer a tool_call_id/,
    ));
  it('refuses tool calls left unanswered', () =>
    expect400(
      { model: 'svc-v2-flash', messages: [...user('hi'), { role: 'assistant', content: null, tool_calls: [call] }, ...user('and?')] },
      /not answered by tool messages: call_1/,
    ));
});
