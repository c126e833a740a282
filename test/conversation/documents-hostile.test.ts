import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEngine, type EngineHandle } from '../../src/conversation/create-engine.ts';
import type { ReplyEvent } from '../../src/conversation/types.ts';
import { PDF_TEXT_TIMEOUT_MS } from '../../src/media/document/read-document.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';
import { collectReply, type CollectedReply } from '../helpers/collect-reply.ts';
import { silentLogger } from '../helpers/logger.ts';
import { heapBombPdf, slowPagePdf } from '../media/document/inflating-pdf.ts';
import { FakeAdapter, testConfig } from './fake-adapter.ts';

let emulator: Emulator;
let handle: EngineHandle;
let adapter: FakeAdapter;

beforeAll(async () => {
  emulator = await startEmulator();
  const config = testConfig({ API_BASE_URL: emulator.url, API_KEY: emulator.apiKey, API_MAX_RETRIES: '0', WEB_SEARCH: 'off' });
  handle = await createEngine({ config, logger: silentLogger, store: new MemoryStore() });
  adapter = new FakeAdapter(handle.engine);
});
afterAll(async () => {
  await handle.close();
  await emulator.close();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Asks with a PDF in a channel of its own; resolves once the engine is reading the file, with the rest of the reply to come. */
async function askWithPdf(channelId: string, name: string, data: Buffer): Promise<{ reply: Promise<CollectedReply>; finished: () => boolean }> {
  const stream = adapter.engine.handle(adapter.message('what does this say?', { channelId, documents: [{ name, mime: 'application/pdf', data }] }));
  const events = stream[Symbol.asyncIterator]();
  for (let next = await events.next(); !next.done; next = await events.next()) {
    if (next.value.type === 'status' && next.value.phase === 'reading') break;
  }
  let finished = false;
  const reply = collectReply({ [Symbol.asyncIterator]: () => events as AsyncIterator<ReplyEvent> }).finally(() => {
    finished = true;
  });
  return { reply, finished: () => finished };
}

describe('a PDF whose one page inflates to tens of megabytes, attached to a question', () => {
  it('is refused in one line when its reading fills the bounded heap, while another conversation is answered meanwhile', async () => {
    const bomb = heapBombPdf();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const hostile = await askWithPdf('hostile', 'numbers.pdf', bomb);
    const other = await adapter.send('what is 2 + 2?', { channelId: 'calm' });
    expect(other.text).toBe('Echo: [Alice]: what is 2 + 2?');
    expect(hostile.finished()).toBe(false);
    const refused = await hostile.reply;
    delay.disable();
    expect(refused.notices).toEqual([
      { type: 'notice', code: 'file_skipped', text: '"numbers.pdf" takes more memory to read than I allow, so I gave up.' },
    ]);
    expect(refused.text).toMatch(/^Echo: /);
    expect(refused.error).toBeUndefined();
    // pdf.js parsing the page on this thread held it for seconds.
    expect(delay.max / 1e6).toBeLessThan(1_000);
  }, 60_000);

  it('is given up at the time limit when its one page takes longer, while another conversation is answered meanwhile', async () => {
    const slow = slowPagePdf();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    const hostile = await askWithPdf('slow', 'letters.pdf', slow);
    const other = await adapter.send('what is 3 + 3?', { channelId: 'calm-too' });
    expect(other.text).toBe('Echo: [Alice]: what is 3 + 3?');
    expect(hostile.finished()).toBe(false);
    await vi.advanceTimersByTimeAsync(PDF_TEXT_TIMEOUT_MS);
    const refused = await hostile.reply;
    expect(refused.notices).toEqual([{ type: 'notice', code: 'file_skipped', text: 'Reading "letters.pdf" took longer than 20 s, so I gave up.' }]);
    expect(refused.text).toMatch(/^Echo: /);
  }, 60_000);
});
