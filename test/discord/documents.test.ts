import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_DOWNLOAD_BYTES } from '../../adapters/discord/attachments.ts';
import { registerCommands } from '../../adapters/discord/index.ts';
import type { IncomingMessage } from '../../src/conversation/types.ts';
import type { UserMessageAttachment } from '../fakes/discord/index.ts';
import { pdfFile } from '../fixtures/documents/pdf-file.ts';
import { ONE_SECOND_BUCKETS, startHarness, type Harness } from './harness.ts';

const BUGGY_PY = 'def average(values):\n    return sum(values) / len(values) + 1\n';
// The first bytes of a real zip archive: a local file header.
const ZIP = Buffer.concat([Buffer.from('504b0304140000000800', 'hex'), Buffer.alloc(64, 7)]);

interface SentAttachment {
  id: string;
  filename: string;
}

describe('discord: attached documents', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ fake: { rateLimits: ONE_SECOND_BUCKETS } });
    await registerCommands(h.config, { guildId: h.fake.guild.id });
  });

  afterAll(async () => {
    await h.close();
  });

  /** A user message in a fresh channel; resolves with Herald's reply (all its messages) and what was sent. */
  async function ask(name: string, content: string, attachments: UserMessageAttachment[]) {
    const channel = h.fake.addChannel({ name });
    const before = h.finished;
    const sent = h.fake.sendMessage({ channelId: channel.id, content, attachments });
    await h.repliesFinished(before + 1);
    const messages = h.botMessages(channel.id);
    return { text: messages.map((m) => m.content).join('\n'), messages, sent: sent.attachments as SentAttachment[] };
  }

  const downloadsOf = (attachment: SentAttachment) => h.fake.cdnRequests.filter((r) => r.attachmentId === attachment.id);

  it('passes readable files with their bytes and unreadable ones by name only, never downloading those', async () => {
    const handle = vi.spyOn(h.core.engine, 'handle');
    try {
      const { sent } = await ask('to-the-core', `${h.mention} look`, [
        { filename: 'main.py', bytes: Buffer.from(BUGGY_PY) },
        { filename: 'clip.mp4', bytes: Buffer.alloc(32, 1) },
        { filename: 'site.zip', bytes: ZIP },
      ]);
      const incoming = handle.mock.calls[0]![0] as IncomingMessage;
      expect(incoming.documents?.map((d) => [d.name, d.mime, d.data && Buffer.from(d.data).toString()])).toEqual([
        ['main.py', 'text/x-python; charset=utf-8', BUGGY_PY],
        ['clip.mp4', 'video/mp4', undefined],
        ['site.zip', 'application/zip', undefined],
      ]);
      expect(incoming.images).toBeUndefined();
      expect(incoming.audio).toBeUndefined();
      expect(sent.map((a) => downloadsOf(a).length)).toEqual([1, 0, 0]);
    } finally {
      handle.mockRestore();
    }
  });

  it('refuses a readable file over the download cap without downloading it', async () => {
    const { text, sent } = await ask('too-big', `${h.mention} any errors in here?`, [
      { filename: 'server.log', bytes: Buffer.alloc(MAX_DOWNLOAD_BYTES + 1024 * 1024, 0x61) },
    ]);
    expect(text).toContain('"server.log" is 26 MB, over the 25 MB I can read.');
    expect(downloadsOf(sent[0]!)).toEqual([]);
  });

  it("answers a question about an attached .py file: the code and the file's name reach the model", async () => {
    const { text, sent } = await ask('python', `${h.mention} what's wrong with this?`, [{ filename: 'main.py', bytes: Buffer.from(BUGGY_PY) }]);
    expect(text).toMatch(/^Echo: \[Alice\]: /);
    expect(text).toContain("what's wrong with this?");
    expect(text).toContain('main.py');
    expect(text).toContain('return sum(values) / len(values) + 1');
    expect(downloadsOf(sent[0]!).map((r) => r.status)).toEqual([200]);
  });

  it('reads the text of an attached PDF', async () => {
    const pdf = pdfFile([['Quarterly report'], ['Revenue grew by twelve percent.']]);
    const { text } = await ask('pdf', `${h.mention} summarize this`, [{ filename: 'report.pdf', bytes: pdf }]);
    expect(text).toContain('summarize this');
    expect(text).toContain('report.pdf');
    expect(text).toContain('Quarterly report');
    expect(text).toContain('Revenue grew by twelve percent.');
  });

  it('reads a file Discord gives no type for when it turns out to be text', async () => {
    const { text, sent } = await ask('untyped', `${h.mention} anything missing?`, [
      { filename: 'groceries.list', bytes: Buffer.from('eggs\nflour\nmilk\n') },
    ]);
    expect(sent).toHaveLength(1);
    expect(text).toContain('anything missing?');
    expect(text).toContain('groceries.list');
    expect(text).toMatch(/eggs\s+flour\s+milk/);
  });

  it('answers the question and ends with a line naming a .zip it skipped, without downloading it', async () => {
    const { text, sent } = await ask('zip-and-question', `${h.mention} what is the capital of France?`, [{ filename: 'site.zip', bytes: ZIP }]);
    expect(text).toContain('what is the capital of France?');
    const lines = text.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^_.*site\.zip.*_$/);
    expect(lines.slice(0, -1).join('\n')).not.toContain('PK');
    expect(downloadsOf(sent[0]!)).toEqual([]);
  });

  it('says clearly that it cannot read a .zip sent with nothing but the mention, without asking the model', async () => {
    const requests = h.emu.requests.length;
    const { text, messages, sent } = await ask('zip-only', h.mention, [{ filename: 'backup.zip', bytes: ZIP }]);
    expect(h.emu.requests.length).toBe(requests);
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) expect(message.content.trim()).not.toMatch(/^(…|\.\.\.)?$/);
    expect(text).toContain('backup.zip');
    expect(text).not.toMatch(/^Echo: \[Alice\]:\s*$/m);
    expect(downloadsOf(sent[0]!)).toEqual([]);
  });

  it('reads several files of one message and names the one it skipped', async () => {
    const { text, sent } = await ask('several', `${h.mention} do these agree?`, [
      { filename: 'config.json', bytes: Buffer.from('{"retries": 3}\n') },
      { filename: 'README.md', bytes: Buffer.from('# Service\nRetries: 5\n') },
      { filename: 'old.zip', bytes: ZIP },
      { filename: 'retry.ts', bytes: Buffer.from('export const RETRIES = 4;\n') },
    ]);
    expect(text).toContain('do these agree?');
    for (const part of ['config.json', '{"retries": 3}', 'README.md', 'Retries: 5', 'retry.ts', 'export const RETRIES = 4;']) {
      expect(text).toContain(part);
    }
    expect(text.trimEnd().split('\n').at(-1)).toMatch(/^_.*old\.zip.*_$/);
    expect(sent.map((a) => downloadsOf(a).length)).toEqual([1, 1, 0, 1]);
  });

  /** Runs /ask in the text channel; resolves with the text of the response once Herald has finished it. */
  async function slashAsk(question: string, file: UserMessageAttachment): Promise<string> {
    const before = h.finished;
    const record = h.fake.invokeCommand({ name: 'ask', options: { question, file: { attachment: file } } });
    await h.repliesFinished(before + 1);
    return [record.originalMessageId!, ...record.followupIds].map((id) => h.fake.message(id)!.content).join('\n');
  }

  const cdnPathsEndingWith = (filename: string) => h.fake.cdnRequests.filter((r) => r.path.endsWith(`/${filename}`));

  it('/ask reads the file given as its file option', async () => {
    const text = await slashAsk("what's wrong with this?", { filename: 'average.py', bytes: Buffer.from(BUGGY_PY) });
    expect(text).toContain("what's wrong with this?");
    expect(text).toContain('average.py');
    expect(text).toContain('return sum(values) / len(values) + 1');
    expect(cdnPathsEndingWith('average.py').map((r) => r.status)).toEqual([200]);
  });

  it('/ask answers the question and names a file option it cannot read, without downloading it', async () => {
    const text = await slashAsk('what is the capital of France?', { filename: 'photos.zip', bytes: ZIP });
    expect(text).toContain('what is the capital of France?');
    expect(text.trimEnd().split('\n').at(-1)).toMatch(/^_.*photos\.zip.*_$/);
    expect(cdnPathsEndingWith('photos.zip')).toEqual([]);
  });
});
