import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App, LogLevel } from '@slack/bolt';
import { FAST_RETRIES } from './bolt-harness.ts';
import { startFakeSlack } from './index.ts';
import type { FakeSlack } from './index.ts';

describe('files', () => {
  let fake: FakeSlack;
  let app: App;

  beforeEach(async () => {
    fake = await startFakeSlack();
    app = new App({
      token: fake.botToken,
      signingSecret: fake.signingSecret,
      logLevel: LogLevel.ERROR,
      tokenVerificationEnabled: false,
      clientOptions: { slackApiUrl: fake.apiUrl, retryConfig: FAST_RETRIES },
    });
  });

  afterEach(async () => {
    await fake.close();
  });

  it('files.uploadV2 uploads the bytes and shares them in the thread', async () => {
    const mention = fake.events.appMention({ text: 'make me a report' });
    const bytes = Buffer.from('quarterly numbers\n1,2,3\n');
    const result = await app.client.files.uploadV2({
      channel_id: fake.channelId,
      thread_ts: String(mention.ts),
      initial_comment: 'Here is the report',
      file: bytes,
      filename: 'report.txt',
    });
    expect(result.ok).toBe(true);
    expect(fake.calls().map((c) => c.method)).toEqual(expect.arrayContaining(['files.getUploadURLExternal', 'files.completeUploadExternal']));
    expect(fake.uploads).toHaveLength(1);
    expect(fake.uploads[0]?.bytes).toBe(bytes.length);

    const shared = await fake.waitForMessage(fake.channelId, (m) => m.fileIds.length > 0);
    expect(shared.text).toBe('Here is the report');
    expect(shared.thread_ts).toBe(mention.ts);
    expect(shared.user).toBe(fake.botUserId);

    const replies = await app.client.conversations.replies({ channel: fake.channelId, ts: String(mention.ts) });
    const file = replies.messages?.[1]?.files?.[0];
    expect(file).toMatchObject({ name: 'report.txt', mimetype: 'text/plain', size: bytes.length });
    const download = await fetch(String(file?.url_private_download), { headers: { authorization: `Bearer ${fake.botToken}` } });
    expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);
  });

  it('a private file needs the bot token; without it the client gets the sign-in page', async () => {
    const audio = Buffer.from([0, 0, 0, 0x20, 0x66, 0x74, 0x79, 0x70, 0x4d, 0x34, 0x41, 0x20]);
    const clip = fake.uploadAudioClip({ bytes: audio });
    const event = fake.events.fileShare({ files: [clip], channel: fake.dmChannelId });
    const shared = (event.files as Array<Record<string, unknown>>)[0];
    expect(event).toMatchObject({ type: 'message', subtype: 'file_share', channel_type: 'im' });
    expect(shared).toMatchObject({ subtype: 'slack_audio', mimetype: 'audio/mp4', filetype: 'm4a' });

    const anonymous = await fetch(String(shared?.url_private));
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await anonymous.text()).toContain('Sign in');

    const wrongToken = await fetch(String(shared?.url_private_download), { headers: { authorization: 'Bearer xoxb-not-the-token' } });
    expect(wrongToken.headers.get('content-type')).toMatch(/^text\/html/);

    const authorized = await fetch(String(shared?.url_private_download), { headers: { authorization: `Bearer ${fake.botToken}` } });
    expect(authorized.status).toBe(200);
    expect(authorized.headers.get('content-type')).toBe('audio/mp4');
    expect(Buffer.from(await authorized.arrayBuffer())).toEqual(audio);

    expect(fake.fileFetches.map((f) => [f.authorized, f.tokenPresented, f.status])).toEqual([
      [false, false, 302],
      [false, true, 302],
      [true, true, 200],
    ]);
  });

  it('files.info answers for shared files and not for unknown ones', async () => {
    const image = fake.uploadUserFile({ name: 'photo.png', bytes: Buffer.from('png'), extra: { original_w: 640, original_h: 480 } });
    fake.events.fileShare({ files: [image], text: 'what is this?' });
    const info = await app.client.files.info({ file: image.file.id });
    expect(info.file).toMatchObject({ id: image.file.id, mimetype: 'image/png', filetype: 'png', original_w: 640 });
    await expect(app.client.files.info({ file: 'F0000000000' })).rejects.toMatchObject({ data: { error: 'file_not_found' } });
  });

  it('describes documents, code and archives by their type as Slack does', async () => {
    const csv = fake.uploadUserFile({ name: 'q3.csv', bytes: Buffer.from('region,total\nnorth,12\n') });
    const code = fake.uploadUserFile({ name: 'fib.py', bytes: Buffer.from('def fib(n):\n    return n\n') });
    const pdf = fake.uploadUserFile({ name: 'report.pdf', bytes: Buffer.from('%PDF-1.4\n') });
    const zip = fake.uploadUserFile({ name: 'logs.zip', bytes: Buffer.from('PK\x03\x04') });
    const event = fake.events.fileShare({ files: [csv, code, pdf, zip], text: 'files' });
    expect(event.files).toEqual([
      expect.objectContaining({ name: 'q3.csv', mimetype: 'text/csv', filetype: 'csv', pretty_type: 'CSV', mode: 'hosted', lines: 2, lines_more: 0 }),
      expect.objectContaining({ name: 'fib.py', mimetype: 'text/plain', filetype: 'python', pretty_type: 'Python', mode: 'hosted' }),
      expect.objectContaining({ name: 'report.pdf', mimetype: 'application/pdf', filetype: 'pdf', pretty_type: 'PDF', size: 9 }),
      expect.objectContaining({ name: 'logs.zip', mimetype: 'application/zip', filetype: 'zip', pretty_type: 'Zip', editable: false }),
    ]);
    const zipInfo = await app.client.files.info({ file: zip.file.id });
    expect(zipInfo.file).not.toHaveProperty('preview');
    expect(zipInfo.file?.url_private_download).toMatch(/\/download\/logs\.zip$/);
  });

  it('a snippet is editable plain text named by its title, its language the filetype, its first lines previewed', async () => {
    const lines = ['#!/bin/sh', 'set -e', 'echo "<one>"', 'echo two', 'echo three', 'echo four', 'echo five'];
    const snippet = fake.uploadSnippet({ content: lines.join('\n'), filetype: 'shell', title: 'deploy' });
    const event = fake.events.fileShare({ files: [snippet], text: '' });
    expect((event.files as unknown[])[0]).toMatchObject({
      name: 'deploy',
      title: 'deploy',
      mode: 'snippet',
      editable: true,
      mimetype: 'text/plain',
      filetype: 'shell',
      pretty_type: 'Shell',
      preview: '#!/bin/sh\nset -e\necho "&lt;one&gt;"\necho two\necho three',
      lines: 7,
      lines_more: 2,
      preview_is_truncated: true,
      edit_link: expect.stringMatching(/\/edit$/),
    });
    expect(fake.uploadSnippet({ content: 'x' }).file).toMatchObject({ name: 'Untitled', filetype: 'text', pretty_type: 'Plain Text' });
  });

  it('a mention that shares files carries them, without the file_share subtype its message has', async () => {
    const pdf = fake.uploadUserFile({ name: 'report.pdf', bytes: Buffer.from('%PDF-1.4\n') });
    const event = fake.events.appMention({ text: 'summarize this', files: [pdf] });
    expect(event).toMatchObject({
      type: 'app_mention',
      upload: false,
      files: [expect.objectContaining({ id: pdf.file.id, url_private: expect.any(String) })],
    });
    expect(event).not.toHaveProperty('subtype');
    expect(fake.message(fake.channelId, String(event.ts))).toMatchObject({ subtype: 'file_share', fileIds: [pdf.file.id] });
    expect((await app.client.files.info({ file: pdf.file.id })).file).toMatchObject({ name: 'report.pdf' });
  });

  it("a thread's files in conversations.replies: the root first, a bot's share with its own profile, a deleted file a tombstone", async () => {
    const pdf = fake.uploadUserFile({ name: 'report.pdf', bytes: Buffer.from('%PDF-1.4\n') });
    const root = fake.events.fileShare({ files: [pdf], text: 'the report', channel: fake.channelId });
    const ci = fake.addBot('ci-bot');
    const log = fake.uploadUserFile({ name: 'build.log', bytes: Buffer.from('ok\n'), user: ci.userId });
    fake.events.botMessage({ bot: ci, text: 'build log', files: [log], thread_ts: String(root.ts) });
    const image = fake.uploadUserFile({ name: 'chart.png', bytes: Buffer.from('png') });
    const shared = fake.events.fileShare({ files: [image], channel: fake.channelId, thread_ts: String(root.ts) });
    const mention = fake.events.appMention({ text: 'summarize this', thread_ts: String(root.ts) });

    const replies = await app.client.conversations.replies({ channel: fake.channelId, ts: String(root.ts), latest: String(mention.ts) });
    expect(replies.messages?.map((m) => m.text)).toEqual(['the report', 'build log', '']);
    expect(replies.messages?.[0]).toMatchObject({
      user: fake.userId,
      files: [expect.objectContaining({ id: pdf.file.id, url_private: expect.any(String) })],
    });
    expect(replies.messages?.[1]).toMatchObject({
      user: ci.userId,
      bot_id: ci.botId,
      upload: true,
      bot_profile: expect.objectContaining({ id: ci.botId, app_id: ci.appId, name: 'ci-bot' }),
      files: [expect.objectContaining({ id: log.file.id, user: ci.userId })],
    });
    expect(replies.messages?.[1]).not.toHaveProperty('client_msg_id');

    // The parent comes first on the first page whatever the window says; later pages hold replies only.
    const after = await app.client.conversations.replies({ channel: fake.channelId, ts: String(root.ts), oldest: String(shared.ts), limit: 1 });
    expect(after.messages?.map((m) => m.ts)).toEqual([root.ts]);
    const next = await app.client.conversations.replies({
      channel: fake.channelId,
      ts: String(root.ts),
      oldest: String(shared.ts),
      cursor: after.response_metadata?.next_cursor ?? '',
    });
    expect(next.messages?.map((m) => m.ts)).toEqual([mention.ts]);

    fake.deleteFile(pdf.file.id);
    const later = await app.client.conversations.replies({ channel: fake.channelId, ts: String(root.ts) });
    expect(later.messages?.[0]?.files).toEqual([{ id: pdf.file.id, mode: 'tombstone' }]);
    await expect(app.client.files.info({ file: pdf.file.id })).rejects.toMatchObject({ data: { error: 'file_deleted' } });
    const download = await fetch(String(pdf.file.url_private_download), { headers: { authorization: `Bearer ${fake.botToken}` } });
    expect(download.status).toBe(404);
  });
});
