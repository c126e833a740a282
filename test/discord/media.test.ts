import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadAttachment } from '../../adapters/discord/attachments.ts';
import { registerCommands } from '../../adapters/discord/index.ts';
import { DownloadError } from '../../src/media/download.ts';
import { MessageFlag, type UserMessageAttachment } from '../fakes/discord/index.ts';
import { ONE_SECOND_BUCKETS, startHarness, type Harness } from './harness.ts';

const fixture = (path: string) => readFileSync(new URL(`../fixtures/${path}`, import.meta.url));
const WAVEFORM = Buffer.alloc(40, 100).toString('base64');

function voiceMessage(): UserMessageAttachment {
  return { filename: 'voice-message.ogg', bytes: fixture('audio/voice-note.ogg'), durationSecs: 2.4, waveform: WAVEFORM };
}

describe('discord: images and recordings', () => {
  let h: Harness;
  let transcript = 'hello from a voice note';

  beforeAll(async () => {
    h = await startHarness({ fake: { rateLimits: ONE_SECOND_BUCKETS }, emulator: { transcribe: () => transcript } });
    await registerCommands(h.config, { guildId: h.fake.guild.id });
  });

  afterAll(async () => {
    await h.close();
  });

  it('describes several images of one message (HEIC, AVIF, TIFF) with the text as the question', async () => {
    const { fake, emu } = h;
    const channel = fake.addChannel({ name: 'pictures' });
    const before = h.finished;
    fake.sendMessage({
      channelId: channel.id,
      content: `${h.mention} which one is the brightest?`,
      attachments: [
        { filename: 'phone.heic', bytes: fixture('images/marker.heic') },
        { filename: 'marker.avif', bytes: fixture('images/marker.avif') },
        { filename: 'scan.tif', bytes: fixture('images/marker-orientation-8.tif') },
      ],
    });
    await h.repliesFinished(before + 1);
    const text = h
      .botMessages(channel.id)
      .map((m) => m.content)
      .join('\n');
    expect(text).toContain('[Alice]: which one is the brightest?');
    expect(text).toContain('I see 3 images.');
    expect(text.match(/Image \d: image\/(png|jpeg|webp) \d+x\d+/g)).toHaveLength(3);
    const vision = emu.requests.filter((r) => (r.body as { model?: string }).model === h.config.models.vision);
    expect(vision).toHaveLength(1);
  });

  it('asks for a description when an image comes with nothing but the mention', async () => {
    const { fake } = h;
    const channel = fake.addChannel({ name: 'one-picture' });
    const before = h.finished;
    fake.sendMessage({ channelId: channel.id, content: h.mention, attachments: [{ filename: 'p.png', bytes: fixture('images/marker.png') }] });
    await h.repliesFinished(before + 1);
    expect(h.botMessages(channel.id)[0]?.content).toMatch(/^Echo: \[Alice\]: Describe this image\.\nI see 1 image\./);
  });

  it('transcribes a voice message in a DM, shows the transcript, then answers it', async () => {
    const { fake } = h;
    transcript = 'what should I cook tonight';
    const before = h.finished;
    fake.sendMessage({ channelId: fake.dmChannel.id, attachments: [voiceMessage()], flags: MessageFlag.IsVoiceMessage });
    await h.repliesFinished(before + 1);
    const [reply] = h.botMessages(fake.dmChannel.id);
    expect(reply?.content).toBe('🎙️ **Voice message**\n> what should I cook tonight\n\nEcho: (voice message, transcribed) what should I cook tonight');
  });

  it('leaves voice messages in a server alone by default, unless they are addressed to Herald', async () => {
    const { fake, emu } = h;
    const guild = fake.addGuild({ name: 'Fresh Guild', memberIds: [fake.users.alice.id] });
    const channel = fake.addChannel({ guildId: guild.id, name: 'fresh-voice-notes' });
    transcript = 'nobody asked';
    const requests = emu.requests.length;
    fake.sendMessage({ channelId: channel.id, attachments: [voiceMessage()], flags: MessageFlag.IsVoiceMessage });
    transcript = 'this one is for you';
    const before = h.finished;
    fake.sendMessage({ channelId: channel.id, content: h.mention, attachments: [voiceMessage()], flags: MessageFlag.IsVoiceMessage });
    await h.repliesFinished(before + 1);
    expect(h.botMessages(channel.id).map((m) => m.content)).toEqual([
      '🎙️ **Voice message**\n> this one is for you\n\nEcho: [Alice]: (voice message, transcribed) this one is for you',
    ]);
    expect(emu.requests.length - requests).toBe(2); // one transcription and one answer, both for the mention
  });

  it('only transcribes voice messages in a server when told to, unless told to answer them, and never pings from a transcript', async () => {
    const { fake } = h;
    const channel = fake.addChannel({ name: 'voice-notes' });
    let before = h.finished;
    fake.invokeCommand({ name: 'settings', userId: fake.users.owner.id, channelId: channel.id, options: { voice_notes: 'when-asked' } });
    await h.repliesFinished(before + 1);
    transcript = `ping <@${fake.users.bob.id}> and @everyone please`;
    before = h.finished;
    fake.sendMessage({ channelId: channel.id, attachments: [voiceMessage()], flags: MessageFlag.IsVoiceMessage });
    await h.repliesFinished(before + 1);
    const [transcriptOnly] = h.botMessages(channel.id);
    expect(transcriptOnly?.content).toBe(`🎙️ **Voice message**\n> ping <@${fake.users.bob.id}> and @everyone please`);
    expect(transcriptOnly).toMatchObject({ mentionIds: [], mentionEveryone: false });

    before = h.finished;
    fake.invokeCommand({ name: 'settings', userId: fake.users.owner.id, channelId: channel.id, options: { voice_notes: 'always' } });
    await h.repliesFinished(before + 1);
    const settingsReply = fake.interactions.at(-1)!;
    expect(fake.message(settingsReply.originalMessageId!)?.content).toMatch(
      /\n🎙️ Saved\. Herald transcribes and answers every voice message in this server\.$/,
    );

    transcript = 'answer me please';
    before = h.finished;
    fake.sendMessage({ channelId: channel.id, attachments: [voiceMessage()], flags: MessageFlag.IsVoiceMessage });
    await h.repliesFinished(before + 1);
    expect(h.botMessages(channel.id)[1]?.content).toBe(
      '🎙️ **Voice message**\n> answer me please\n\nEcho: [Alice]: (voice message, transcribed) answer me please',
    );
  });

  it('leaves voice messages in a server alone once voice notes are off, unless they are addressed to Herald', async () => {
    const { fake, emu } = h;
    const channel = fake.addChannel({ name: 'quiet-voice-notes' });
    let before = h.finished;
    fake.invokeCommand({ name: 'settings', userId: fake.users.owner.id, channelId: channel.id, options: { voice_notes: 'off' } });
    await h.repliesFinished(before + 1);
    expect(fake.message(fake.interactions.at(-1)!.originalMessageId!)?.content).toMatch(
      /\n🎙️ Saved\. Voice messages are off in this server \(the default\): Herald leaves them alone unless they are addressed to it \(a reply to Herald, a mention, or in its thread\)\.$/,
    );

    transcript = 'nobody asked';
    const requests = emu.requests.length;
    fake.sendMessage({ channelId: channel.id, attachments: [voiceMessage()], flags: MessageFlag.IsVoiceMessage });
    transcript = 'this one is for you';
    before = h.finished;
    fake.sendMessage({ channelId: channel.id, content: h.mention, attachments: [voiceMessage()], flags: MessageFlag.IsVoiceMessage });
    await h.repliesFinished(before + 1);
    expect(h.botMessages(channel.id).map((m) => m.content)).toEqual([
      '🎙️ **Voice message**\n> this one is for you\n\nEcho: [Alice]: (voice message, transcribed) this one is for you',
    ]);
    expect(emu.requests.length - requests).toBe(2); // one transcription and one answer, both for the mention

    before = h.finished;
    fake.invokeCommand({ name: 'settings', userId: fake.users.owner.id, channelId: channel.id });
    await h.repliesFinished(before + 1);
    expect(fake.message(fake.interactions.at(-1)!.originalMessageId!)?.content).toMatch(
      /\n🎙️ Voice messages are off in this server \(the default\): /,
    );
    before = h.finished;
    fake.invokeCommand({ name: 'settings', userId: fake.users.owner.id, channelId: channel.id, options: { voice_notes: 'when-asked' } });
    await h.repliesFinished(before + 1);
    expect(fake.message(fake.interactions.at(-1)!.originalMessageId!)?.content).toMatch(
      /\n🎙️ Saved\. Herald transcribes voice messages in this server and answers only those addressed to it\.$/,
    );
  });

  it('transcribes an audio file and answers the question asked with it', async () => {
    const { fake } = h;
    const channel = fake.addChannel({ name: 'audio-files' });
    transcript = 'the meeting starts at nine';
    let before = h.finished;
    fake.sendMessage({
      channelId: channel.id,
      content: `${h.mention} when does it start?`,
      attachments: [{ filename: 'memo.mp3', bytes: fixture('audio/speech.mp3') }],
    });
    await h.repliesFinished(before + 1);
    expect(h.botMessages(channel.id)[0]?.content).toBe(
      '🎙️ **memo.mp3**\n> the meeting starts at nine\n\nEcho: [Alice]: when does it start?\n(audio file "memo.mp3", transcript) the meeting starts at nine',
    );
    before = h.finished;
    fake.sendMessage({ channelId: channel.id, content: h.mention, attachments: [{ filename: 'memo.flac', bytes: fixture('audio/speech.flac') }] });
    await h.repliesFinished(before + 1);
    expect(h.botMessages(channel.id)[1]?.content).toBe('🎙️ **memo.flac**\n> the meeting starts at nine');
  });

  it('downloads attachments with a size cap, checked against the Content-Length even when the reported size is wrong', async () => {
    const { fake } = h;
    const sent = fake.sendMessage({
      channelId: fake.dmChannel.id,
      content: 'not for Herald to read',
      attachments: [{ filename: 'big.png', bytes: fixture('images/huge-5000x4000.png') }],
    });
    const url = (sent.attachments as { url: string }[])[0]!.url;
    const error = await downloadAttachment({ name: 'big.png', url, size: 0 }, { maxBytes: 1024 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DownloadError);
    expect((error as DownloadError).code).toBe('too_large');
    expect((error as DownloadError).message).toMatch(/^"big\.png" is [\d.]+ KB, over the 1 KB I can read\.$/);
    expect(
      (await downloadAttachment({ name: 'big.png', url, size: 0 }, { maxBytes: 1024 * 1024 })).equals(fixture('images/huge-5000x4000.png')),
    ).toBe(true);
  });
});
