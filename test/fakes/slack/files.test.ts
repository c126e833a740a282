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
    expect(fake.calls().map((c) => c.method)).toEqual(
      expect.arrayContaining(['files.getUploadURLExternal', 'files.completeUploadExternal']),
    );
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
});
