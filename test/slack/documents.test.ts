import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { downloadSlackFile } from '../../adapters/slack/file-download.ts';
import type { IncomingMessage } from '../../src/conversation/types.ts';
import { startFakeSlack, type FakeSlack, type StoredMessage } from '../fakes/slack/index.ts';
import { pdfFile } from '../fixtures/documents/pdf-file.ts';
import { startSlackWorld, stopSlackWorld, recordHanded, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

describe('documents shared with Herald on Slack', () => {
  let fake: FakeSlack;
  let emu: Emulator;
  let herald: HeraldOnSlack;
  /** Every message the Slack adapter handed the core. */
  let handed: IncomingMessage[];

  beforeEach(async () => {
    ({ fake, emu, herald } = await startSlackWorld());
    handed = recordHanded(herald);
  });

  afterEach(() => stopSlackWorld({ fake, emu, herald }));

  /** Every byte Herald sent the service, as text: no private Slack URL may be in it. */
  const sentToService = () => emu.requests.map((r) => JSON.stringify(r.body)).join('\n');
  const expectNoPrivateUrlSent = () => {
    expect(sentToService()).not.toContain('files-pri');
    expect(sentToService()).not.toContain(fake.baseUrl);
  };
  /** Herald's finished answer to a mention: streamed in its thread, the stream stopped. */
  const answer = (): Promise<StoredMessage> => fake.waitFor(() => fake.botMessages().find((m) => m.stream?.state === 'stopped'), 10_000);
  /** Herald's answer to a direct message, once `text` is in it. */
  const directAnswer = (text: string): Promise<StoredMessage> =>
    fake.waitFor(() => fake.botMessages(fake.dmChannelId).find((m) => m.text.includes(text)), 10_000);
  const fetchedIds = () => fake.fileFetches.map((f) => f.fileId);

  it('reads a CSV shared with a question: downloaded with the bot token, its bytes handed on, never its private URL', async () => {
    const bytes = Buffer.from('region,total\nnorth,12\nsouth,30\n');
    const csv = fake.uploadUserFile({ name: 'q3.csv', bytes });
    await fake.deliverEvent(fake.events.appMention({ text: 'which region sold most?', files: [csv] }));
    const reply = await answer();
    // The service echoes the user's turn: the question, then the file's content.
    expect(reply.text).toContain('Echo: [alice]: which region sold most?');
    expect(reply.text).toContain('north,12\nsouth,30');
    expect(fake.fileFetches).toEqual([expect.objectContaining({ fileId: csv.file.id, authorized: true, tokenPresented: true, status: 200 })]);
    expect(handed[0]?.documents).toEqual([{ name: 'q3.csv', mime: 'text/csv', data: bytes }]);
    expectNoPrivateUrlSent();
  });

  it('reads a PDF shared with a mention', async () => {
    const bytes = pdfFile([['Quarterly revenue grew 12 percent.'], ['Costs fell in the north.']]);
    const pdf = fake.uploadUserFile({ name: 'report.pdf', bytes });
    await fake.deliverEvent(fake.events.appMention({ text: 'summarize this', files: [pdf] }));
    const reply = await answer();
    expect(reply.text).toContain('Echo: [alice]: summarize this');
    expect(reply.text).toContain('Quarterly revenue grew 12 percent.');
    expect(reply.text).toContain('Costs fell in the north.');
    expect(fetchedIds()).toEqual([pdf.file.id]);
    expect(handed[0]?.documents).toEqual([{ name: 'report.pdf', mime: 'application/pdf', data: bytes }]);
    expectNoPrivateUrlSent();
  });

  it('reads a code snippet written in Slack', async () => {
    const code = 'def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n';
    const snippet = fake.uploadSnippet({ content: code, filetype: 'python', title: 'fib' });
    await fake.deliverEvent(fake.events.fileShare({ files: [snippet], text: 'why is this slow?' }));
    const reply = await directAnswer('fib(n - 1)');
    expect(reply.text).toMatch(/^Echo: why is this slow\?/);
    expect(fetchedIds()).toEqual([snippet.file.id]);
    expect(handed[0]?.documents).toEqual([{ name: 'fib', mime: 'text/plain', data: Buffer.from(code) }]);
    expectNoPrivateUrlSent();
  });

  it('does not download a zip: the core gets its name only, and the question is still answered', async () => {
    const zip = fake.uploadUserFile({ name: 'logs.zip', bytes: Buffer.from('PK\x03\x04 not really a zip') });
    await fake.deliverEvent(fake.events.appMention({ text: 'what went wrong last night?', files: [zip] }));
    const reply = await answer();
    expect(fake.fileFetches).toEqual([]);
    expect(handed[0]?.documents).toEqual([{ name: 'logs.zip', mime: 'application/zip' }]);
    expect(reply.text).toMatch(/^Echo: \[alice\]: what went wrong last night\?/);
    expect(reply.text.trim().split('\n').at(-1)).toContain('logs.zip');
  });

  it('answers a mention with only a zip clearly, and the thread goes on', async () => {
    const zip = fake.uploadUserFile({ name: 'logs.zip', bytes: Buffer.from('PK\x03\x04 not really a zip') });
    const mention = fake.events.appMention({ text: '', files: [zip] });
    await fake.deliverEvent(mention);
    const reply = await answer();
    expect(reply.text).toContain('logs.zip');
    expect(reply.text).not.toContain('Echo:');
    expect(fake.fileFetches).toEqual([]);
    expect(emu.requests).toEqual([]);
    await fake.deliverEvent(
      fake.events.threadReply({ text: 'ok, here is my question then', channel: fake.channelId, thread_ts: String(mention.ts) }),
    );
    const next = await fake.waitFor(() => fake.botMessages().filter((m) => m.stream?.state === 'stopped')[1], 10_000);
    expect(next.text).toBe('Echo: [alice]: ok, here is my question then');
  });

  it('reads a shared web page as a document, not as Slack’s sign-in page', async () => {
    const bytes = Buffer.from('<!DOCTYPE html><html><body><h1>Release notes</h1></body></html>');
    const page = fake.uploadUserFile({ name: 'notes.html', bytes });
    await fake.deliverEvent(fake.events.appMention({ files: [page], text: 'what changed?' }));
    const reply = await answer();
    expect(reply.text).not.toMatch(/⚠️/);
    expect(reply.text).toContain('<h1>Release notes</h1>');
    expect(handed[0]?.documents).toEqual([{ name: 'notes.html', mime: 'text/html', data: bytes }]);
  });

  it('reads code whose declared type says nothing by the type Slack gave it', async () => {
    const bytes = Buffer.from(`#!/bin/sh\n${'echo step\n'.repeat(120_000)}`);
    const script = fake.uploadUserFile({ name: 'deploy', bytes, mimetype: 'application/octet-stream', filetype: 'shell' });
    await fake.deliverEvent(fake.events.appMention({ files: [script], text: 'review this' }));
    await answer();
    expect(fetchedIds()).toEqual([script.file.id]);
    expect(handed[0]?.documents).toEqual([{ name: 'deploy', mime: 'text/plain', data: bytes }]);
  });

  it('never fetches a file linked from another service, and names it for the core', async () => {
    const linked = fake.uploadUserFile({
      name: 'plan.txt',
      bytes: Buffer.alloc(0),
      extra: {
        mode: 'external',
        is_external: true,
        external_type: 'gdrive',
        url_private: 'https://drive.google.com/file/d/1a2b3c/view',
        size: 0,
      },
    });
    delete linked.file.url_private_download;
    await fake.deliverEvent(fake.events.appMention({ files: [linked], text: 'read my plan' }));
    await answer();
    expect(fake.fileFetches).toEqual([]);
    expect(handed[0]?.documents).toEqual([{ name: 'plan.txt', mime: 'text/plain' }]);
  });

  it('refuses a document larger than it downloads before downloading any file of the message', async () => {
    const small = fake.uploadUserFile({ name: 'notes.txt', bytes: Buffer.from('short notes\n') });
    const huge = fake.uploadUserFile({ name: 'dump.csv', bytes: Buffer.from('a,b\n'), extra: { size: 300 * 1024 * 1024 } });
    await fake.deliverEvent(fake.events.appMention({ text: 'compare these', files: [small, huge] }));
    const reply = await fake.waitFor(() => fake.botMessages()[0], 10_000);
    expect(reply.text).toMatch(/^⚠️ .*dump\.csv.*300 MB, over the 25 MB I can read/);
    expect(fake.fileFetches).toEqual([]);
    expect(handed).toEqual([]);
  });

  it('refuses a 26 MB log file before downloading it, rather than decode it whole', async () => {
    const log = fake.uploadUserFile({ name: 'server.log', bytes: Buffer.alloc(26 * 1024 * 1024, 0x61) });
    await fake.deliverEvent(fake.events.appMention({ text: 'any errors?', files: [log] }));
    const reply = await fake.waitFor(() => fake.botMessages()[0], 10_000);
    expect(reply.text).toBe('⚠️ "server.log" is 26 MB, over the 25 MB I can read.');
    expect(fake.fileFetches).toEqual([]);
    expect(handed).toEqual([]);
  });

  it('leaves out a file deleted before Herald read the message', async () => {
    const gone = fake.uploadUserFile({ name: 'old.csv', bytes: Buffer.from('a,b\n') });
    fake.workspace.files.delete(gone.file.id);
    await fake.deliverEvent(fake.events.appMention({ files: [{ id: gone.file.id }], text: 'and this?' }));
    await answer();
    expect(fake.fileFetches).toEqual([]);
    expect(handed[0]?.documents).toBeUndefined();
  });

  it('looks up a file the event only names (a Slack Connect stub) before deciding what it is', async () => {
    const bytes = Buffer.from('# Runbook\nRestart the worker.\n');
    const doc = fake.uploadUserFile({ name: 'runbook.md', bytes });
    const event = fake.events.appMention({ files: [doc], text: 'summarize' });
    event.files = [{ id: doc.file.id, mode: 'file_access', file_access: 'check_file_info', created: 0, timestamp: 0, user: '', editable: false }];
    await fake.deliverEvent(event);
    await answer();
    expect(fake.calls('files.info').map((c) => c.args.file)).toEqual([doc.file.id]);
    expect(handed[0]?.documents).toEqual([{ name: 'runbook.md', mime: 'text/plain', data: bytes }]);
  });
});

describe('downloadSlackFile for a shared web page', () => {
  let fake: FakeSlack;

  beforeEach(async () => {
    fake = await startFakeSlack();
  });

  afterEach(async () => {
    await fake.close();
  });

  it('refuses the sign-in page a wrong token is redirected to, and reads the page itself with the right one', async () => {
    const page = fake.uploadUserFile({ name: 'notes.html', bytes: Buffer.from('<html><body>notes</body></html>') });
    const url = String(page.file.url_private_download);
    const options = { extraTokenHosts: [new URL(fake.baseUrl).host], maxBytes: 1024, htmlExpected: true };
    await expect(downloadSlackFile(url, 'notes.html', { ...options, botToken: 'xoxb-wrong-token' })).rejects.toThrow(
      /sign-in page instead of “notes\.html”/,
    );
    expect((await downloadSlackFile(url, 'notes.html', { ...options, botToken: fake.botToken })).toString()).toContain('notes</body>');
  });
});
