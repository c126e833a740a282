import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Env } from '../../src/config/config.ts';
import { createEngine, type EngineHandle } from '../../src/conversation/create-engine.ts';
import type { ChatMessage, ContentPart } from '../../src/service/types.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';
import { pdfFile, scannedPdf } from '../fixtures/documents/pdf-file.ts';
import { FakeAdapter, testConfig } from './fake-adapter.ts';
import { silentLogger } from '../helpers/logger.ts';

let emulator: Emulator;
const handles: EngineHandle[] = [];

beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});
beforeEach(() => emulator.reset());
afterEach(async () => {
  for (const handle of handles.splice(0)) await handle.close();
});

interface ChatBody {
  model: string;
  messages: ChatMessage[];
}

/** The engine on the real service client and capabilities, talking to the emulator. */
async function start(env: Env = {}): Promise<FakeAdapter> {
  const config = testConfig({ API_BASE_URL: emulator.url, API_KEY: emulator.apiKey, API_MAX_RETRIES: '0', WEB_SEARCH: 'off', ...env });
  const handle = await createEngine({ config, logger: silentLogger, store: new MemoryStore() });
  handles.push(handle);
  return new FakeAdapter(handle.engine);
}

function sentBodies(): ChatBody[] {
  return emulator.requests.filter((r) => r.endpoint !== null).map((r) => r.body as ChatBody);
}

/** The text of the last user message of the last request to the service. */
function lastUserText(): string {
  const content = sentBodies()
    .at(-1)!
    .messages.findLast((m) => m.role === 'user')!.content;
  if (typeof content === 'string') return content;
  return (content as ContentPart[]).flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
}

const file = (name: string, text: string | Buffer) => ({ name, data: typeof text === 'string' ? Buffer.from(text) : text });

const MAIN_PY =
  'def mean(values):\r\n    """Average.\r\n\r\n    ```\r\n    mean([1, 2]) == 1.5\r\n    ```\r\n    """\r\n    return sum(values) / len(value)\r\n';

describe('attached documents reach the service', () => {
  it('sends a code file, labelled and fenced, with the question, and answers it', async () => {
    const adapter = await start();
    const reply = await adapter.send("what's wrong with this?", { documents: [file('main.py', MAIN_PY)] });
    expect(reply.error).toBeUndefined();
    const expected = `[Alice]: what's wrong with this?\n[file "main.py"]\n\`\`\`\`python\n${MAIN_PY.replace(/\r\n/g, '\n')}\`\`\`\``;
    expect(lastUserText()).toBe(expected);
    expect(reply.text).toBe(`Echo: ${expected}`);
    expect(reply.statuses).toContain('reading the file…');
    expect(reply.notices).toEqual([]);
  });

  it("sends a PDF's text with its page count and page markers", async () => {
    const adapter = await start();
    const pdf = pdfFile([['Quarterly report', 'Revenue rose 12%'], ['Costs fell 3%']]);
    await adapter.send('what happened to costs?', { documents: [{ name: 'report.pdf', mime: 'application/pdf', data: pdf }] });
    expect(lastUserText()).toBe(
      '[Alice]: what happened to costs?\n[file "report.pdf", 2 pages]\n```\n--- page 1 ---\nQuarterly report\nRevenue rose 12%\n\n--- page 2 ---\nCosts fell 3%\n```',
    );
  });

  it('asks for a summary when files come without a question', async () => {
    const adapter = await start();
    await adapter.send('', { documents: [file('notes.md', '# Plan\n- ship it\n')] });
    expect(lastUserText()).toBe('[Alice]: Summarize this file.\n[file "notes.md"]\n```markdown\n# Plan\n- ship it\n```');
    await adapter.send('', { documents: [file('a.txt', 'one'), file('b.csv', 'x,y\n1,2\n')], threadId: 'two' });
    expect(lastUserText()).toBe('[Alice]: Summarize these files.\n[file "a.txt"]\n```text\none\n```\n[file "b.csv"]\n```csv\nx,y\n1,2\n```');
  });

  it('cuts what does not fit in half the context at a line, marks the cut and says how much was read', async () => {
    const adapter = await start({ CONTEXT_TOKENS: '4000' });
    const lines = Array.from({ length: 2000 }, (_, i) => `2026-11-25 12:00:${String(i % 60).padStart(2, '0')} line ${i + 1} ok`);
    const small = 'port = 8080\n';
    const reply = await adapter.send('why did it crash?', { documents: [file('server.log', `${lines.join('\n')}\n`), file('app.toml', small)] });
    expect(reply.error).toBeUndefined();

    const sent = lastUserText();
    expect(sent).toContain(`[file "app.toml"]\n\`\`\`toml\n${small}\`\`\``);
    const marker = /\n```\n\[… "server\.log" was cut here, after line ([\d,]+) of 2,000: the rest did not fit\]/.exec(sent);
    expect(marker).not.toBeNull();
    const kept = Number(marker![1]!.replace(/,/g, ''));
    expect(kept).toBeGreaterThan(100);
    expect(kept).toBeLessThan(2000);
    expect(sent).toContain(`\n${lines[kept - 1]}\n\`\`\`\n[…`);
    expect(sent).not.toContain(lines[kept]);
    const fileTokens = (sent.length - sent.indexOf('[file')) / 4;
    expect(fileTokens).toBeLessThanOrEqual(2000);

    expect(reply.notices).toEqual([
      { type: 'notice', code: 'file_truncated', text: expect.stringMatching(/^"server\.log" is long, so I read only about the first \d+% of it\.$/) },
    ]);
    const percent = Number(/(\d+)%/.exec(reply.notices[0]!.text)![1]);
    expect(Math.abs(percent - (100 * kept) / lines.length)).toBeLessThan(2);
    // The notice closes the reply: it comes after the answer's text.
    const kinds = reply.events.map((e) => e.type);
    expect(kinds.lastIndexOf('text')).toBeLessThan(kinds.indexOf('notice'));
  });

  it('cuts a long PDF and says how many pages were read', async () => {
    const adapter = await start({ CONTEXT_TOKENS: '3000' });
    const pages = Array.from({ length: 40 }, (_, p) =>
      Array.from({ length: 20 }, (_, l) => `Page ${p + 1}, paragraph ${l + 1} of the annual report.`),
    );
    const reply = await adapter.send('summarize', { documents: [file('annual.pdf', pdfFile(pages))] });
    const notice = /^"annual\.pdf" is long, so I read only about its first (\d+) of 40 pages\.$/.exec(reply.notices[0]?.text ?? '');
    expect(notice).not.toBeNull();
    const read = Number(notice![1]);
    expect(lastUserText()).toContain(`\n[… "annual.pdf" was cut here, in page ${read} of 40: the rest did not fit]`);
    expect(lastUserText()).toContain(`--- page ${read} ---`);
    expect(lastUserText()).not.toContain(`--- page ${read + 1} ---`);
  });

  it('skips files it cannot read, says so after the answer, and still answers the rest', async () => {
    const adapter = await start();
    const binary = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 91) & 255));
    const reply = await adapter.send('and what about this list?', {
      documents: [{ name: 'demo.mp4', mime: 'video/mp4' }, file('data.bin', binary), file('todo.txt', 'milk\neggs\n')],
    });
    expect(reply.error).toBeUndefined();
    expect(lastUserText()).toBe('[Alice]: and what about this list?\n[file "todo.txt"]\n```text\nmilk\neggs\n```');
    expect(reply.text).toMatch(/^Echo: /);
    expect(reply.notices).toEqual([
      { type: 'notice', code: 'file_skipped', text: 'I skipped "demo.mp4": besides images and audio, I can only read text, code and PDF files.' },
      {
        type: 'notice',
        code: 'file_skipped',
        text: `"data.bin" isn't a text file or a PDF, so I can't read it. I can read text, code and PDF files.`,
      },
    ]);
  });

  it('answers a question whose only file was skipped, with the notice', async () => {
    const adapter = await start();
    const reply = await adapter.send('hello there', { documents: [{ name: 'archive.zip' }] });
    expect(reply.text).toBe('Echo: [Alice]: hello there');
    expect(reply.notices.map((n) => n.code)).toEqual(['file_skipped']);
  });

  it('answers unreadable files alone with a clear error, without asking the service', async () => {
    const adapter = await start();
    const reply = await adapter.send('', { documents: [file('scan.pdf', pdfFile([null])), { name: 'slides.pptx' }] });
    expect(reply.error).toEqual({
      type: 'error',
      code: 'media',
      message:
        '"scan.pdf" has no text I can read: it looks like a scan without a text layer. Send the pages as images and I can look at them.\n' +
        'I skipped "slides.pptx": besides images and audio, I can only read text, code and PDF files.',
    });
    expect(reply.text).toBe('');
    expect(sentBodies()).toEqual([]);
  });

  it('keeps the file in the conversation for a follow-up question', async () => {
    const adapter = await start();
    await adapter.send('remember this', { documents: [file('secret.txt', 'The password is pelican.\n')] });
    const followUp = await adapter.send('history');
    expect(followUp.text).toContain('user: [Alice]: remember this\n[file "secret.txt"]\n```text\nThe password is pelican.\n```');
    expect(sentBodies()[1]!.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  });

  it('sends images and files together to the vision model', async () => {
    const adapter = await start();
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3c3' } })
      .png()
      .toBuffer();
    const reply = await adapter.send('', { images: [{ name: 'chart.png', data: png }], documents: [file('data.csv', 'a,b\n1,2\n')] });
    expect(sentBodies()[0]!.model).toBe('svc-v2.5');
    expect(lastUserText()).toBe('[Alice]: Describe this image and summarize this file.\n[file "data.csv"]\n```csv\na,b\n1,2\n```');
    expect(reply.text).toContain('I see 1 image.\nImage 1: image/png 40x30');
  });
  it('sends a scanned PDF without a text layer to the vision model as its first pages, with a note when there are more', async () => {
    const adapter = await start();
    const jpeg = await sharp({ create: { width: 120, height: 160, channels: 3, background: '#eee' } })
      .jpeg()
      .toBuffer();
    const scan = scannedPdf(Array.from({ length: 7 }, () => ({ jpeg, width: 120, height: 160 })));
    const reply = await adapter.send('', { documents: [file('contract.pdf', scan)] });
    expect(reply.error).toBeUndefined();
    expect(sentBodies()[0]!.model).toBe('svc-v2.5');
    expect(lastUserText()).toBe(
      '[Alice]: Summarize this file.\n[file "contract.pdf", 7 pages, scanned without a text layer: pages 1, 2, 3, 4, 5 follow as images]',
    );
    expect(reply.text).toContain('I see 5 images.');
    expect(reply.text).toContain('Image 1: image/jpeg 120x160');
    expect(reply.notices).toEqual([
      { type: 'notice', code: 'file_truncated', text: '"contract.pdf" is a scan of 7 pages, so I looked only at the first 5.' },
    ]);
  });

  it('still skips a PDF with neither text nor pictures, saying it looks like a scan', async () => {
    const adapter = await start();
    const reply = await adapter.send('what is this?', { documents: [file('blank.pdf', pdfFile([null, null]))] });
    expect(reply.error).toBeUndefined();
    expect(reply.notices.map((n) => n.text)).toEqual([expect.stringMatching(/^"blank\.pdf" has no text I can read: it looks like a scan/)]);
  });
});
