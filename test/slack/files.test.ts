import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { downloadSlackFile, mayCarryToken } from '../../adapters/slack/file-download.ts';
import { locateFfmpeg } from '../../src/media/audio/ffmpeg.ts';
import { markdownOf, startFakeSlack, type FakeSlack } from '../fakes/slack/index.ts';
import { startHerald, startSlackWorld, stopSlackWorld, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

const fixture = (path: string) => readFileSync(new URL(`../fixtures/${path}`, import.meta.url));
const ffmpeg = locateFfmpeg(process.env.PATH ?? '');

describe('files shared with Herald on Slack', () => {
  let fake: FakeSlack;
  let emu: Emulator;
  let herald: HeraldOnSlack;

  beforeEach(async () => {
    ({ fake, emu, herald } = await startSlackWorld());
  });

  afterEach(() => stopSlackWorld({ fake, emu, herald }));

  /** Every byte Herald sent the service, as text: no private Slack URL may be in it. */
  const sentToService = () => emu.requests.map((r) => JSON.stringify(r.body)).join('\n');

  it.skipIf(!ffmpeg)(
    `fetches a private voice clip (M4A) with the bot token, transcribes it and answers it${ffmpeg ? '' : ' — skipped: ffmpeg not on PATH'}`,
    async () => {
      const clip = fake.uploadAudioClip({ bytes: fixture('audio/speech.m4a'), durationMs: 2000 });
      await fake.deliverEvent(fake.events.fileShare({ files: [clip] }));
      const reply = await fake.waitFor(() => fake.botMessages(fake.dmChannelId)[0], 15_000);
      await fake.waitFor(() => reply.text.includes('Echo:'), 15_000);
      expect(markdownOf(reply)).toMatch(/^🎙️ \*\*audio_message\.m4a\*\*\n> Transcript of \d+\.\d\d s of audio/);
      expect(markdownOf(reply)).toMatch(/Echo: \(voice message, transcribed\) Transcript of/);
      expect(fake.fileFetches).toEqual([expect.objectContaining({ fileId: clip.file.id, authorized: true, tokenPresented: true, status: 200 })]);
      const asr = emu.requests.find((r) => JSON.stringify(r.body).includes('input_audio'));
      expect(asr).toBeDefined();
      expect(sentToService()).not.toContain('files-pri');
      expect(sentToService()).not.toContain(fake.baseUrl);
      expect(sentToService()).not.toContain('files.slack.com');
    },
    30_000,
  );

  it.skipIf(!ffmpeg)(
    `transcribes an audio file (WebM) shared in a channel thread it is in${ffmpeg ? '' : ' — skipped: ffmpeg not on PATH'}`,
    async () => {
      const mention = fake.events.appMention({ text: 'I will send a recording' });
      await fake.deliverEvent(mention);
      await fake.waitFor(() => fake.botMessages().find((m) => m.stream?.state === 'stopped'));
      const file = fake.uploadUserFile({ name: 'meeting.webm', bytes: fixture('audio/voice-note.webm'), mimetype: 'audio/webm' });
      await fake.deliverEvent(fake.events.fileShare({ files: [file], channel: fake.channelId, thread_ts: String(mention.ts) }));
      const reply = await fake.waitFor(() => fake.botMessages().filter((m) => m.stream?.state === 'stopped')[1], 15_000);
      // An audio file without a question: the transcript is the answer.
      expect(reply.text).toMatch(/^🎙️ \*\*meeting\.webm\*\*\n> Transcript of /);
      expect(reply.text).not.toContain('Echo:');
      expect(sentToService()).not.toContain('files-pri');
    },
    30_000,
  );

  it('describes a shared image from its bytes, never its private URL', async () => {
    const image = fake.uploadUserFile({ name: 'marker.png', bytes: fixture('images/marker.png') });
    await fake.deliverEvent(fake.events.fileShare({ files: [image], text: 'what is in this picture?' }));
    const reply = await fake.waitFor(() => fake.botMessages(fake.dmChannelId)[0]);
    await fake.waitFor(() => reply.text.includes('I see 1 image.'));
    expect(reply.text).toContain('Image 1: image/png 64x48');
    expect(fake.fileFetches[0]).toMatchObject({ authorized: true, status: 200 });
    expect(sentToService()).toContain('data:image/png;base64,');
    expect(sentToService()).not.toContain('files-pri');
  });

  it('says clearly when a file cannot be read, instead of answering without it', async () => {
    const image = fake.uploadUserFile({ name: 'gone.png', bytes: fixture('images/marker.png') });
    fake.workspace.files.get(image.file.id)!.uploaded = false;
    await fake.deliverEvent(fake.events.fileShare({ files: [image], text: 'look' }));
    const reply = await fake.waitFor(() => fake.botMessages(fake.dmChannelId)[0]);
    expect(reply.text).toMatch(/^⚠️ /);
    expect(emu.requests).toHaveLength(0);
  });

  it('stops downloading the files of a question deleted meanwhile, and answers nothing', async () => {
    const doc = fake.uploadUserFile({ name: 'notes.txt', bytes: Buffer.alloc(256 * 1024, 0x61) });
    fake.holdFileTransfer(doc.file.id, 1024);
    const mention = fake.events.appMention({ text: 'summarize this', files: [doc] });
    await fake.deliverEvent(mention);
    await fake.waitFor(() => fake.fileFetches[0]);
    await fake.deliverEvent(fake.events.messageDeleted({ channel: String(mention.channel), ts: String(mention.ts) }));
    await fake.waitFor(() => fake.fileFetches[0]!.ended === 'client-closed');
    // Stopping waits for the work in progress: whatever it would still post is posted by then.
    await herald.stop();
    herald = await startHerald(fake, emu, { mode: 'http' });
    expect(emu.requests).toHaveLength(0);
    expect(fake.calls('chat.postMessage')).toEqual([]);
  });
});

describe('downloadSlackFile', () => {
  let fake: FakeSlack;

  beforeEach(async () => {
    fake = await startFakeSlack();
  });

  afterEach(async () => {
    await fake.close();
  });

  it("follows Slack's redirect to the sign-in page and fails clearly rather than reading HTML as the file", async () => {
    const clip = fake.uploadAudioClip({ bytes: Buffer.from('not really audio') });
    const url = String(clip.file.url_private_download);
    const options = { botToken: 'xoxb-wrong-token', extraTokenHosts: [new URL(fake.baseUrl).host], maxBytes: 1024 };
    await expect(downloadSlackFile(url, 'audio_message.m4a', options)).rejects.toThrow(/sign-in page instead of “audio_message\.m4a”.*files:read/);
    expect(fake.fileFetches[0]).toMatchObject({ tokenPresented: true, authorized: false, status: 302 });
  });

  it('sends the token only to Slack hosts', async () => {
    expect(mayCarryToken(new URL('https://files.slack.com/files-pri/T1-F1/a.m4a'))).toBe(true);
    expect(mayCarryToken(new URL('https://files.slack-gov.com/files-pri/T1-F1/a.m4a'))).toBe(true);
    expect(mayCarryToken(new URL('http://files.slack.com/files-pri/T1-F1/a.m4a'))).toBe(false);
    expect(mayCarryToken(new URL('https://slack.com.evil.example/x'))).toBe(false);
    expect(mayCarryToken(new URL('https://example.com/x'))).toBe(false);
    const clip = fake.uploadAudioClip({ bytes: Buffer.from('bytes') });
    await expect(downloadSlackFile(String(clip.file.url_private), 'x', { botToken: fake.botToken, maxBytes: 1024 })).rejects.toThrow(/sign-in page/);
    expect(fake.fileFetches[0]).toMatchObject({ tokenPresented: false });
  });

  it('refuses a file over the size limit', async () => {
    const clip = fake.uploadAudioClip({ bytes: Buffer.alloc(4096) });
    const options = { botToken: fake.botToken, extraTokenHosts: [new URL(fake.baseUrl).host], maxBytes: 1024 };
    await expect(downloadSlackFile(String(clip.file.url_private_download), 'big.m4a', options)).rejects.toThrow(
      '"big.m4a" is 4 KB, over the 1 KB I can read.',
    );
  });
});
