import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { locateFfmpeg } from '../../src/media/audio/ffmpeg.ts';
import type { FakeSlack } from '../fakes/slack/index.ts';
import { startHerald, startSlackWorld, stopSlackWorld, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

const fixture = (path: string) => readFileSync(new URL(`../fixtures/${path}`, import.meta.url));
const ffmpeg = locateFfmpeg(process.env.PATH ?? '');

describe('slash commands on Slack', () => {
  let fake: FakeSlack;
  let emu: Emulator;
  let herald: HeraldOnSlack;

  beforeEach(async () => {
    ({ fake, emu, herald } = await startSlackWorld());
  });

  afterEach(() => stopSlackWorld({ fake, emu, herald }));

  const ephemeral = (n = 0) => fake.waitFor(() => fake.responseUrlPosts.filter((p) => p.body.response_type === 'ephemeral')[n]);
  const stopped = (channel = fake.channelId) => fake.botMessages(channel).filter((m) => m.stream?.state === 'stopped');

  it('/ask: acknowledged at once, shows who asked, streams the answer in that thread, and follows up there', async () => {
    const delivery = await fake.sendSlashCommand({ command: '/ask', text: 'what is a <b>tag</b>? --no-search' });
    expect(delivery.status).toBe(200);
    expect(delivery.ackMs).toBeLessThan(3000);
    const answer = await fake.waitFor(() => stopped()[0]);
    const root = fake.message(fake.channelId, answer.thread_ts!)!;
    expect(root.text).toBe(`<@${fake.userId}> used /ask: what is a &lt;b&gt;tag&lt;/b&gt;? --no-search`);
    expect(answer.text).toBe('Echo: [alice]: what is a <b>tag</b>?');
    expect(emu.requests[0]?.body).not.toHaveProperty('tools', expect.arrayContaining([expect.objectContaining({ type: 'web_search' })]));

    await fake.deliverEvent(fake.events.threadReply({ text: 'recall', channel: fake.channelId, thread_ts: answer.thread_ts! }));
    const followUp = await fake.waitFor(() => stopped()[1]);
    expect(followUp.text).toBe('You first said: [alice]: what is a <b>tag</b>?');
  });

  it('/herald-ask works where /ask is taken; in a DM the answer goes straight into the conversation', async () => {
    await fake.sendSlashCommand({ command: '/herald-ask', text: 'hello', channel: fake.dmChannelId });
    const answer = await fake.waitFor(() => fake.botMessages(fake.dmChannelId)[0]);
    await fake.waitFor(() => answer.text === 'Echo: hello');
    expect(answer.thread_ts).toBeUndefined();
  });

  it('/say uploads the spoken WAV into the thread', async () => {
    await fake.sendSlashCommand({ command: '/say', text: 'hello world' });
    const shared = await fake.waitFor(() => fake.botMessages().find((m) => m.fileIds.length > 0), 10_000);
    const file = fake.workspace.files.get(shared.fileIds[0]!)!;
    expect(file.file.name).toBe('speech.wav');
    expect(file.bytes.subarray(0, 4).toString()).toBe('RIFF');
    expect(shared.thread_ts).toBeDefined();
    expect(fake.message(fake.channelId, shared.thread_ts!)?.text).toBe(`<@${fake.userId}> used /say: hello world`);
  });

  it('/say counts against the per-user limit like a question, refused to the user alone, and shows in /usage', async () => {
    await herald.stop();
    herald = await startHerald(fake, emu, { mode: 'http', env: { QUOTA_USER_PER_MINUTE: '1' } });
    await fake.sendSlashCommand({ command: '/say', text: 'hello world' });
    await fake.waitFor(() => fake.botMessages().find((m) => m.fileIds.length > 0), 10_000);
    await fake.sendSlashCommand({ command: '/say', text: 'once more' });
    expect((await ephemeral(0)).body.text).toMatch(/^You've reached your limit of 1 request per minute — try again in \d+ (s|min)\.$/);
    await fake.sendSlashCommand({ command: '/usage' });
    expect((await ephemeral(1)).body.text).toMatch(/^\*You today:\* 1 replies/);
    expect(emu.requests).toHaveLength(1);
  });

  it('/transcribe without a recording explains how to use it', async () => {
    await fake.sendSlashCommand({ command: '/transcribe' });
    const post = await ephemeral();
    expect(post.body.text).toMatch(/can't carry files.*newest voice clip or audio file you shared/);
    expect(fake.botMessages()).toEqual([]);
  });

  it.skipIf(!ffmpeg)(
    `/transcribe takes the newest recording the user shared here${ffmpeg ? '' : ' — skipped: ffmpeg not on PATH'}`,
    async () => {
      const older = fake.uploadUserFile({ name: 'older.webm', bytes: fixture('audio/voice-note.webm'), mimetype: 'audio/webm' });
      fake.events.fileShare({ files: [older], channel: fake.channelId });
      const clip = fake.uploadAudioClip({ bytes: fixture('audio/speech.m4a') });
      fake.events.fileShare({ files: [clip], channel: fake.channelId });
      await fake.sendSlashCommand({ command: '/transcribe' });
      const answer = await fake.waitFor(() => stopped()[0], 15_000);
      expect(answer.text).toMatch(/^🎙️ \*\*audio_message\.m4a\*\*\n> Transcript of /);
      expect(fake.fileFetches.map((f) => [f.fileId, f.authorized])).toEqual([[clip.file.id, true]]);
    },
    30_000,
  );

  it('/describe takes the newest image the user shared here', async () => {
    const image = fake.uploadUserFile({ name: 'marker.png', bytes: fixture('images/marker.png') });
    fake.events.fileShare({ files: [image], channel: fake.channelId, text: 'look' });
    await fake.sendSlashCommand({ command: '/describe', text: 'what colour is it?' });
    const answer = await fake.waitFor(() => stopped()[0]);
    expect(answer.text).toContain('Image 1: image/png 64x48');
  });

  it('/reset and /usage answer only the user who ran them', async () => {
    await fake.sendSlashCommand({ command: '/reset' });
    expect((await ephemeral(0)).body.text).toBe('There was nothing to forget here.');
    await fake.sendSlashCommand({ command: '/usage' });
    expect((await ephemeral(1)).body.text).toMatch(/^\*You today:\* 0 replies/);
    expect(fake.calls('chat.postMessage')).toEqual([]);
  });

  it('/settings is for workspace admins only', async () => {
    await fake.sendSlashCommand({ command: '/settings', text: '--thinking=off' });
    expect((await ephemeral(0)).body.text).toBe('Only administrators can use /settings.');
    Object.assign(fake.workspace.users.get(fake.userId)!, { is_admin: true });
    await fake.sendSlashCommand({ command: '/settings', text: '--thinking=off --web-search=force' });
    expect((await ephemeral(1)).body.text).toBe(
      'Saved. Settings for this server — thinking: off · web search: force · model: default · voice: default · requests per user per minute: default · tokens per user per day: default · persona: default',
    );
  });

  it('explains a malformed command', async () => {
    await fake.sendSlashCommand({ command: '/ask', text: '--search' });
    expect((await ephemeral()).body.text).toMatch(/^Please add the question: \/ask &lt;question&gt;/);
  });

  it('tells the user to invite Herald to a channel it is not in', async () => {
    const other = fake.addChannel({ name: 'elsewhere', is_member: false });
    await fake.sendSlashCommand({ command: '/ask', text: 'hi', channel: other.id });
    expect((await ephemeral()).body.text).toMatch(/^I'm not in this channel yet\. Invite me with `\/invite @herald`/);
    expect(emu.requests).toHaveLength(0);
  });
});
