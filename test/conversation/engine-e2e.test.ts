import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Env } from '../../src/config/config.ts';
import { createEngine, type EngineHandle } from '../../src/conversation/create-engine.ts';
import { writeWav } from '../../src/media/wav.ts';
import type { ChatMessage } from '../../src/service/types.ts';
import type { Store } from '../../src/store/store.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';
import { removeTempDirs, storeBackends } from '../store/backends.ts';
import { FakeAdapter, testConfig } from './fake-adapter.ts';
import { silentLogger } from '../helpers/logger.ts';

const backends = await storeBackends();
let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator.close();
  removeTempDirs();
});

interface ChatBody {
  model: string;
  messages: ChatMessage[];
  tools?: { type: string; function?: { name: string } }[];
}

function chatBodies(): ChatBody[] {
  return emulator.requests.filter((r) => r.endpoint !== null).map((r) => r.body as ChatBody);
}

describe.each(backends)('engine end to end with the emulator, $name store', (backend) => {
  const handles: EngineHandle[] = [];
  const stores: Store[] = [];
  let store: Store;

  beforeEach(async (context) => {
    if (backend.skip) context.skip(backend.skip);
    emulator.reset();
    emulator.pace.tokensPerSecond = 0;
    store = await backend.open();
    stores.push(store);
  });

  afterEach(async () => {
    for (const h of handles.splice(0)) await h.close();
    for (const s of stores.splice(0)) await s.close();
  });

  /** An engine on the real client and capabilities; ids are unique per test, so a shared Redis never mixes runs. */
  async function start(env: Env = {}, on: Store = store) {
    const config = testConfig({
      API_BASE_URL: emulator.url,
      API_KEY: emulator.apiKey,
      API_MAX_RETRIES: '0',
      QUOTA_USER_PER_MINUTE: '100',
      QUOTA_GUILD_PER_MINUTE: '100',
      ...env,
    });
    const handle = await createEngine({ config, logger: silentLogger, store: on });
    handles.push(handle);
    const run = randomUUID().slice(0, 8);
    return new FakeAdapter(handle.engine, { workspaceId: `guild-${run}`, channelId: `channel-${run}` }, `user-${run}-`);
  }

  it('keeps the context of a three-turn conversation', async () => {
    const adapter = await start();
    expect((await adapter.send('My name is Zed.')).text).toBe('Echo: [Alice]: My name is Zed.');
    await adapter.send('I drink green tea.', { author: 'Bob' });
    const third = await adapter.send('what did I say first?');
    expect(third.error).toBeUndefined();
    expect(third.text).toBe('You first said: [Alice]: My name is Zed.');
    const count = await adapter.send('count turns');
    expect(count.text).toBe('Messages: 8 (system 1, user 4, assistant 3, tool 0)');
  });

  it('answers two messages sent at once in one thread in order', async () => {
    const adapter = await start();
    emulator.pace.tokensPerSecond = 400;
    const [first, second] = await Promise.all([
      adapter.send('long 40', { threadId: 't' }),
      adapter.send('history', { threadId: 't', author: 'Bob' }),
    ]);
    expect(first.text.split(' ')).toHaveLength(40);
    expect(second.statuses).toContain('waiting for the previous reply…');
    const bodies = chatBodies();
    expect(bodies.map((b) => b.messages.at(-1)!.content)).toEqual(['[Alice]: long 40', '[Bob]: history']);
    expect(bodies[1]!.messages.slice(1)).toEqual([
      { role: 'user', content: '[Alice]: long 40' },
      { role: 'assistant', content: first.text },
      { role: 'user', content: '[Bob]: history' },
    ]);
    expect(second.text).toContain('user: [Alice]: long 40');
  });

  it('sends every earlier reasoning_content back in a thinking tool-calling turn', async () => {
    const adapter = await start({ THINKING: 'on', WEB_SEARCH: 'off' });
    const reply = await adapter.send('call calculate {"expression":"6*7"} call roll_dice {"notation":"1d1"}');
    expect(reply.text).toBe('Tool results:\n- calculate: 6*7 = 42\n- roll_dice: Error: dice need 2 to 1000 sides');
    expect(reply.reasoning).not.toBe('');
    const [asking, answering] = emulator.requests;
    expect((asking!.body as ChatBody).tools!.map((t) => t.function?.name)).toContain('calculate');
    const assistant = (answering!.body as ChatBody).messages.find((m) => m.tool_calls)!;
    expect(assistant.reasoning_content).toEqual(expect.any(String));
    expect(assistant.tool_calls).toHaveLength(2);
    expect(answering!.reasoningKept).toBe(true);

    await adapter.send('count turns');
    expect(emulator.requests[2]!.reasoningKept).toBe(true);
  });

  it('cites search sources with numbers that match the text', async () => {
    const adapter = await start({ WEB_SEARCH: 'auto', WEB_SEARCH_LIMIT: '3' });
    const reply = await adapter.send('latest news about kiwis');
    expect(reply.error).toBeUndefined();
    const urls = reply.citations.map((c) => c.url);
    expect(new Set(urls).size).toBe(urls.length);
    expect(reply.citations.map((c) => c.index)).toEqual(urls.map((_, i) => i + 1));
    const markers = [...reply.text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(markers.length).toBeGreaterThan(0);
    for (const n of markers) expect(n).toBeLessThanOrEqual(urls.length);
    expect(new Set(markers)).toEqual(new Set(urls.map((_, i) => i + 1)));
    expect(reply.usage.webSearchCalls).toBeGreaterThan(0);
  });

  it('asks for chat completions when a messages-format deployment needs search', async () => {
    const adapter = await start({ API_FORMAT: 'messages', WEB_SEARCH: 'auto' });
    await adapter.send('search the latest news');
    await adapter.send('plain question', {}, { overrides: { webSearch: 'off' } });
    expect(emulator.requests.map((r) => r.endpoint)).toEqual(['chat', 'messages']);
    expect((emulator.requests[0]!.body as ChatBody).tools!.some((t) => t.type === 'web_search')).toBe(true);
  });

  it('announces a trimmed history and no longer sends the oldest turn', async () => {
    const adapter = await start({ CONTEXT_TOKENS: '1500', WEB_SEARCH: 'off' });
    const words = 'lorem ipsum dolor sit amet '.repeat(50);
    await adapter.send(`first ${words}`);
    await adapter.send(`second ${words}`);
    const third = await adapter.send(`third ${words}`);
    expect(third.notices.map((n) => n.text)).toEqual(['Earlier messages were trimmed to fit the context.']);
    const sent = chatBodies()
      .at(-1)!
      .messages.map((m) => String(m.content).slice(0, 15));
    expect(sent).not.toContain('[Alice]: first ');
    expect(sent.at(-1)).toBe('[Alice]: third ');
  });

  it('explains a quota denial and does not call the service', async () => {
    const adapter = await start({ QUOTA_USER_PER_MINUTE: '1' });
    await adapter.send('hello');
    const denied = await adapter.send('hello again');
    expect(denied.error?.message).toBe("You've reached your limit of 1 request per minute — try again in 1 min.");
    expect(emulator.requests).toHaveLength(1);
  });

  it('looks at an image and hears a voice message through the real media preparation', async () => {
    const adapter = await start({ WEB_SEARCH: 'off' });
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c33' } })
      .png()
      .toBuffer();
    const seen = await adapter.send('what is this?', { images: [{ name: 'red.png', data: png }] });
    expect(seen.text).toContain('I see 1 image.\nImage 1: image/png 64x48');
    expect((emulator.requests[0]!.body as ChatBody).model).toBe('svc-v2.5');

    const wav = writeWav(
      new Int16Array(16_000).map((_, i) => Math.round(8000 * Math.sin(i / 5))),
      16_000,
      1,
    );
    const heard = await adapter.send('', { audio: [{ name: 'note.wav', mime: 'audio/wav', data: wav, isVoiceMessage: true }] });
    expect(heard.transcripts).toEqual([{ name: 'note.wav', text: 'Transcript of 1.00 s of audio (language: auto).' }]);
    expect(heard.text).toBe('Echo: [Alice]: (voice message, transcribed) Transcript of 1.00 s of audio (language: auto).');
    expect(heard.usage.audioSeconds).toBe(1);
  });

  // Memory does not outlive the process, so only the lasting backends run this.
  if (backend.openTwin) {
    it('keeps history and usage across a restart on the same store', async () => {
      const before = await start();
      await before.send('remember the lighthouse');
      const userId = `${before.userIdPrefix}alice`;
      await handles.pop()!.close();
      const reopened = await backend.openTwin!(store);
      stores.push(reopened);
      await store.close();
      const handle = await createEngine({
        config: testConfig({ API_BASE_URL: emulator.url, API_KEY: emulator.apiKey }),
        logger: silentLogger,
        store: reopened,
      });
      handles.push(handle);
      const after = new FakeAdapter(handle.engine, before.defaults, before.userIdPrefix);
      expect((await after.send('recall')).text).toBe('You first said: [Alice]: remember the lighthouse');
      expect((await handle.engine.usage({ platform: 'test', userId })).today.replies).toBe(2);
    });
  }
});
