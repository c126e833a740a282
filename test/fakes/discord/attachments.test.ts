import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from './index.ts';

interface AttachmentPayload {
  filename: string;
  size: number;
  url: string;
  proxy_url: string;
  content_type?: string;
}

describe('fake discord: attachments as Discord describes and serves them', () => {
  let fake: FakeDiscord;

  beforeEach(async () => {
    fake = await startFakeDiscord({ heartbeatIntervalMs: 1000 });
  });

  afterEach(async () => {
    await fake.close();
  });

  it('types a file by its name: text with its charset, no content_type for a name it cannot place', () => {
    const names = ['main.py', 'notes.txt', 'report.pdf', 'site.zip', 'backup.tar.gz', 'logs.gz', 'server.go', 'data.mystery', 'Makefile'];
    const sent = fake.sendMessage({
      channelId: fake.textChannel.id,
      attachments: names.map((filename) => ({ filename, bytes: Buffer.from('x') })),
    });
    const attachments = sent.attachments as AttachmentPayload[];
    expect(attachments.map((a) => [a.filename, a.content_type])).toEqual([
      ['main.py', 'text/x-python; charset=utf-8'],
      ['notes.txt', 'text/plain; charset=utf-8'],
      ['report.pdf', 'application/pdf'],
      ['site.zip', 'application/zip'],
      ['backup.tar.gz', 'application/x-tar'],
      ['logs.gz', undefined],
      ['server.go', undefined],
      ['data.mystery', undefined],
      ['Makefile', undefined],
    ]);
    for (const attachment of attachments.filter((a) => a.content_type === undefined)) expect(attachment).not.toHaveProperty('content_type');
  });

  it('gives size, url and proxy_url, both serving the bytes from the CDN, and records each download', async () => {
    const bytes = Buffer.from('print("hello")\n');
    const sent = fake.sendMessage({ channelId: fake.textChannel.id, attachments: [{ filename: 'hello world.py', bytes }] });
    const [attachment] = sent.attachments as AttachmentPayload[];
    expect(attachment).toMatchObject({ filename: 'hello_world.py', size: bytes.length });
    expect(attachment!.url).toMatch(/\/attachments\/\d+\/\d+\/hello_world\.py\?ex=[0-9a-f]+&is=[0-9a-f]+&hm=[0-9a-f]+&$/);
    for (const url of [attachment!.url, attachment!.proxy_url]) {
      const download = await fetch(url);
      expect(download.headers.get('content-type')).toBe('text/x-python; charset=utf-8');
      expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    }
    expect(fake.cdnRequests.map((r) => r.status)).toEqual([200, 200]);
  });

  it('ignores the type an uploader declares: a bot upload is typed by its name too', async () => {
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ content: 'files' }));
    form.append('files[0]', new Blob(['plain words'], { type: 'image/png' }), 'words.txt');
    form.append('files[1]', new Blob(['?'], { type: 'text/plain' }), 'blob.unknownext');
    const response = await fetch(`${fake.restUrl}/v10/channels/${fake.textChannel.id}/messages`, {
      method: 'POST',
      headers: { authorization: `Bot ${fake.token}` },
      body: form,
    });
    expect(response.status).toBe(200);
    const { attachments } = (await response.json()) as { attachments: AttachmentPayload[] };
    expect(attachments.map((a) => a.content_type)).toEqual(['text/plain; charset=utf-8', undefined]);
    const download = await fetch(attachments[1]!.url);
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
  });
});
