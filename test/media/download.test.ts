import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { collectMedia, downloadAttachment } from '../../adapters/discord/attachments.ts';
import { DOWNLOAD_LIMITS, DownloadError, downloadFiles, type DownloadLimits, type FileRequest } from '../../src/media/download.ts';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.ts';

const KB = 1024;
const limits = (changes: Partial<DownloadLimits>): DownloadLimits => ({ ...DOWNLOAD_LIMITS, ...changes });

interface SentAttachment {
  id: string;
  filename: string;
  size: number;
  url: string;
  content_type?: string;
}

/** discord.js's Attachment as collectMedia reads it. */
function asAttachment(sent: SentAttachment) {
  return { id: sent.id, name: sent.filename, url: sent.url, size: sent.size, contentType: sent.content_type ?? null };
}

describe('downloads from the Discord CDN', () => {
  let fake: FakeDiscord;

  beforeEach(async () => {
    fake = await startFakeDiscord({ heartbeatIntervalMs: 1000 });
  });

  afterEach(async () => {
    await fake.close();
  });

  function send(files: Array<{ filename: string; bytes: Buffer }>): SentAttachment[] {
    return fake.sendMessage({ channelId: fake.textChannel.id, attachments: files }).attachments as SentAttachment[];
  }

  it('refuses a file Discord sizes over the cap with a one-line message and no request', async () => {
    const [sent] = send([{ filename: 'report.pdf', bytes: Buffer.alloc(26 * KB * KB) }]);
    const error = await downloadAttachment(asAttachment(sent!)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DownloadError);
    expect(error).toMatchObject({ code: 'too_large', message: '"report.pdf" is 26 MB, over the 25 MB I can read.' });
    expect(fake.cdnRequests).toEqual([]);
  });

  it('refuses a message whose files together pass the message cap before downloading any', async () => {
    const sent = send(['a.txt', 'b.txt', 'c.txt'].map((filename) => ({ filename, bytes: Buffer.alloc(20 * KB * KB, 0x61) })));
    const error = await collectMedia(sent.map(asAttachment) as never, { voiceMessage: false }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'too_large', message: 'These files add up to more than the 50 MB I can read from one message.' });
    expect(fake.cdnRequests).toEqual([]);
  });

  it('stops a download that stalls past the time limit, closing the connection', async () => {
    const [sent] = send([{ filename: 'slow.txt', bytes: Buffer.alloc(64 * KB, 0x61) }]);
    fake.holdCdnTransfer(sent!.id, 1 * KB);
    const error = await downloadFiles([cdn(sent!)], { limits: limits({ fileTimeoutMs: 200 }) }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'timed_out', message: '"slow.txt" took longer than 0.2 s to download, so I stopped.' });
    await vi.waitFor(() => expect(fake.cdnRequests[0]?.ended).toBe('client-closed'));
  });

  it("cancels a message's downloads when its signal aborts (the question deleted)", async () => {
    const sent = send([
      { filename: 'photo.png', bytes: Buffer.alloc(64 * KB) },
      { filename: 'notes.txt', bytes: Buffer.alloc(64 * KB, 0x61) },
    ]);
    for (const file of sent) fake.holdCdnTransfer(file.id, 1 * KB);
    const deleted = new AbortController();
    const media = collectMedia(sent.map(asAttachment) as never, { voiceMessage: false, signal: deleted.signal });
    await vi.waitFor(() => expect(fake.cdnRequests).toHaveLength(2));
    const reason = new Error('question deleted');
    deleted.abort(reason);
    await expect(media).rejects.toBe(reason);
    await vi.waitFor(() => expect(fake.cdnRequests.map((r) => r.ended)).toEqual(['client-closed', 'client-closed']));
  });

  it("downloads a message's files a few at a time", async () => {
    const sent = send(['1', '2', '3', '4', '5'].map((n) => ({ filename: `${n}.txt`, bytes: Buffer.alloc(4 * KB, 0x61) })));
    const held = sent.map((file) => fake.holdCdnTransfer(file.id, KB));
    const done = downloadFiles(sent.map(cdn), { limits: limits({ concurrency: 2 }) });
    await vi.waitFor(() => expect(fake.cdnRequests).toHaveLength(2));
    held[0]!.release();
    await vi.waitFor(() => expect(fake.cdnRequests).toHaveLength(3));
    expect(fake.cdnRequests.filter((r) => r.ended === undefined)).toHaveLength(2);
    for (const transfer of held) transfer.release();
    expect((await done).map((file) => file.data.length)).toEqual([4 * KB, 4 * KB, 4 * KB, 4 * KB, 4 * KB]);
  });

  it('downloads at most eight files at once in the whole process, however many messages ask', async () => {
    const sent = send(Array.from({ length: 10 }, (_, n) => ({ filename: `${n}.txt`, bytes: Buffer.alloc(4 * KB, 0x61) })));
    const held = sent.map((file) => fake.holdCdnTransfer(file.id, KB));
    const messages = [sent.slice(0, 5), sent.slice(5)].map((files) => downloadFiles(files.map(cdn), { limits: limits({ concurrency: 5 }) }));
    await vi.waitFor(() => expect(fake.cdnRequests).toHaveLength(8));
    held[0]!.release();
    await vi.waitFor(() => expect(fake.cdnRequests).toHaveLength(9));
    expect(fake.cdnRequests.filter((r) => r.ended === undefined)).toHaveLength(8);
    for (const transfer of held) transfer.release();
    expect((await Promise.all(messages)).flat()).toHaveLength(10);
  });
});

/** A CDN attachment as a plain request (the Discord adapter's own adds only its error message). */
function cdn(sent: SentAttachment): FileRequest {
  return { name: sent.filename, size: sent.size, open: (signal) => fetch(sent.url, { signal }) };
}

describe('downloads from a host that lies', () => {
  let server: Server;
  let base: string;
  let serve: (res: ServerResponse) => void;
  const closed: boolean[] = [];

  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.on('close', () => closed.push(!res.writableFinished));
      serve(res);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    server.close();
  });

  const request = (name: string): FileRequest => ({ name, open: (signal) => fetch(`${base}/${name}`, { signal }) });

  it('stops an endless body as soon as it passes the cap, without buffering the rest', async () => {
    let sent = 0;
    serve = (res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const pump = () => {
        while (!res.destroyed && res.write(Buffer.alloc(64 * KB, 0x61))) sent += 64 * KB;
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    };
    const error = await downloadFiles([request('endless.log')], { limits: limits({ fileBytes: KB * KB }) }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'too_large', message: '"endless.log" is larger than the 1 MB I can read.' });
    await vi.waitFor(() => expect(closed.at(-1)).toBe(true));
    expect(sent).toBeLessThan(16 * KB * KB);
  });

  it('refuses a declared Content-Length over the cap before reading the body', async () => {
    serve = (res) => {
      res.writeHead(200, { 'content-length': String(300 * KB * KB) });
      res.write(Buffer.alloc(KB));
    };
    const error = await downloadFiles([request('dump.csv')]).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'too_large', message: '"dump.csv" is 300 MB, over the 25 MB I can read.' });
  });

  it('counts the bytes that arrive, not the Content-Length, against the message cap', async () => {
    serve = (res) => {
      res.writeHead(200);
      res.end(Buffer.alloc(600 * KB));
    };
    const files = ['a.bin', 'b.bin'].map((name) => ({ ...request(name), size: 1 }));
    const error = await downloadFiles(files, { limits: limits({ messageBytes: KB * KB }) }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'too_large', message: 'These files add up to more than the 1 MB I can read from one message.' });
  });

  it('names a host that fails to answer', async () => {
    const error = await downloadFiles([{ name: 'x.txt', open: (signal) => fetch('http://127.0.0.1:1/x.txt', { signal }) }]).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'download_failed', message: `I couldn't download "x.txt".` });
  });
});
