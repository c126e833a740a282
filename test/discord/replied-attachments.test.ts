import { readFileSync } from 'node:fs';
import type { TextChannel } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageFlag, type ChannelRecord, type Json, type SendMessageInput } from '../fakes/discord/index.ts';
import { pdfFile } from '../fixtures/documents/pdf-file.ts';
import { ONE_SECOND_BUCKETS, startHarness, type Harness } from './harness.ts';

const fixture = (path: string) => readFileSync(new URL(`../fixtures/${path}`, import.meta.url));
const WAVEFORM = Buffer.alloc(40, 100).toString('base64');
const MINUTES = 'Decisions: ship on Friday, Carol owns the release notes.\n';

interface SentAttachment {
  id: string;
  filename: string;
}

describe('discord: a reply reads the attachments of the message it answers', () => {
  let h: Harness;
  let transcript = '';
  /** Posted by Bob before Herald connected: Herald's discord.js never saw them. */
  let earlier: Json;
  let earlierForwarded: Json;

  beforeAll(async () => {
    h = await startHarness({
      fake: { rateLimits: ONE_SECOND_BUCKETS },
      emulator: { transcribe: () => transcript },
      env: (fake) => {
        earlier = fake.sendMessage({
          channelId: fake.textChannel.id,
          authorId: fake.users.bob.id,
          content: 'Minutes of the meeting',
          attachments: [{ filename: 'minutes.txt', bytes: Buffer.from(MINUTES) }],
        });
        earlierForwarded = fake.sendMessage({
          channelId: fake.textChannel.id,
          authorId: fake.users.bob.id,
          attachments: [{ filename: 'budget.csv', bytes: Buffer.from('item,cost\nchairs,120\n') }],
        });
        return { QUOTA_USER_PER_MINUTE: '100' }; // Alice asks more than the default 10 a minute here
      },
    });
  });

  afterAll(async () => {
    await h.close();
  });

  /** Bob posts `original` in a fresh channel, then Alice replies to it with `reply`; resolves with Herald's answer to Alice. */
  async function replyTo(name: string, original: Omit<SendMessageInput, 'channelId'>, reply: Omit<SendMessageInput, 'channelId'>) {
    const channel = h.fake.addChannel({ name });
    const posted = h.fake.sendMessage({ channelId: channel.id, authorId: h.fake.users.bob.id, ...original });
    return { ...(await answer(channel, { ...reply, messageReference: { messageId: posted.id as string } })), original: posted };
  }

  /** Alice's message and Herald's answer to it: the text of Herald's messages after it. */
  async function answer(channel: ChannelRecord, reply: Omit<SendMessageInput, 'channelId'>) {
    const before = h.finished;
    const sent = h.fake.sendMessage({ channelId: channel.id, ...reply });
    await h.repliesFinished(before + 1);
    const after = h.botMessages(channel.id).filter((m) => BigInt(m.id) > BigInt(sent.id as string));
    return { text: after.map((m) => m.content).join('\n'), sent };
  }

  const downloadsOf = (message: Json) =>
    (message.attachments as SentAttachment[]).flatMap((a) => h.fake.cdnRequests.filter((r) => r.attachmentId === a.id));
  const visionRequests = () => h.emu.requests.filter((r) => (r.body as { model?: string }).model === h.config.models.vision);

  it("describes someone's image when asked about it in a reply", async () => {
    const vision = visionRequests().length;
    const { text } = await replyTo(
      'replied-image',
      { content: 'my new desk setup', attachments: [{ filename: 'desk.png', bytes: fixture('images/marker.png') }] },
      { content: `${h.mention} what colour is the marker?` },
    );
    expect(text).toMatch(
      /^Echo: \[Alice\]: \(replying to Bob: "my new desk setup"\)\nwhat colour is the marker\?\nI see 1 image\.\nImage 1: image\/\w+ \d+x\d+/,
    );
    expect(visionRequests().length).toBe(vision + 1);
  });

  it("reads someone's PDF and text file when asked about them in a reply", async () => {
    const pdf = pdfFile([['Quarterly report'], ['Revenue grew by twelve percent.']]);
    const { text } = await replyTo(
      'replied-pdf',
      {
        attachments: [
          { filename: 'report.pdf', bytes: pdf },
          { filename: 'notes.txt', bytes: Buffer.from('Ask about hiring.\n') },
        ],
      },
      { content: `${h.mention} what does this say?` },
    );
    expect(text).toMatch(/^Echo: \[Alice\]: what does this say\?\n/);
    for (const part of ['report.pdf', 'Quarterly report', 'Revenue grew by twelve percent.', 'notes.txt', 'Ask about hiring.']) {
      expect(text).toContain(part);
    }
  });

  it("transcribes someone's voice message, left alone in the server until asked about, and answers the question about it", async () => {
    transcript = 'can someone pick up the cake at five';
    const { text } = await replyTo(
      'replied-voice',
      {
        flags: MessageFlag.IsVoiceMessage,
        attachments: [{ filename: 'voice-message.ogg', bytes: fixture('audio/voice-note.ogg'), durationSecs: 2.4, waveform: WAVEFORM }],
      },
      { content: `${h.mention} what is he asking?` },
    );
    expect(text).toBe(
      '🎙️ **Voice message**\n> can someone pick up the cake at five\n\n' +
        'Echo: [Alice]: what is he asking?\n(voice message, transcribed) can someone pick up the cake at five',
    );
  });

  it('names a file of the replied-to message it cannot read, without downloading it, and answers', async () => {
    const { text, original } = await replyTo(
      'replied-zip',
      { content: 'backup', attachments: [{ filename: 'site.zip', bytes: Buffer.concat([Buffer.from('504b0304', 'hex'), Buffer.alloc(32, 7)]) }] },
      { content: `${h.mention} how big is a megabyte?` },
    );
    expect(text).toContain('how big is a megabyte?');
    expect(text.trimEnd().split('\n').at(-1)).toMatch(/^_.*site\.zip.*_$/);
    expect(downloadsOf(original)).toEqual([]);
  });

  it("reads the user's own attachment, not the replied-to message's", async () => {
    const { text, original, sent } = await replyTo(
      'own-wins',
      { attachments: [{ filename: 'theirs.txt', bytes: Buffer.from('their draft\n') }] },
      { content: `${h.mention} compare`, attachments: [{ filename: 'mine.txt', bytes: Buffer.from('my draft\n') }] },
    );
    expect(text).toContain('mine.txt');
    expect(text).toContain('my draft');
    expect(text).not.toContain('their draft');
    expect(downloadsOf(original)).toEqual([]);
    expect(downloadsOf(sent)).toHaveLength(1);
  });

  it("sends nothing again for a reply to Herald's own message with a file", async () => {
    const record = h.fake.addChannel({ name: 'reply-to-herald' });
    const channel = (await h.bot.client.channels.fetch(record.id)) as TextChannel;
    const own = await channel.send({ content: 'Here are the notes.', files: [{ attachment: Buffer.from('the launch plan\n'), name: 'plan.md' }] });
    const { text } = await answer(record, { content: `${h.mention} thanks, and what is 2+2?`, messageReference: { messageId: own.id } });
    expect(text).toBe('Echo: [Alice]: thanks, and what is 2+2?');
    expect(downloadsOf(h.fake.messagePayload(own.id))).toEqual([]);
  });

  it('fetches the replied-to message when Discord did not send it and Herald never saw it', async () => {
    const { text } = await answer(h.fake.textChannel, {
      content: `${h.mention} who owns the release notes?`,
      messageReference: { messageId: earlier.id as string },
      omitReferencedMessage: true,
    });
    expect(h.fake.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/messages/${earlier.id as string}`))).toHaveLength(1);
    expect(text).toMatch(/^Echo: \[Alice\]: \(replying to Bob: "Minutes of the meeting"\)\nwho owns the release notes\?\n/);
    expect(text).toContain('minutes.txt');
    expect(text).toContain('Carol owns the release notes.');
  });

  it("fetches the replied-to message when discord.js holds only a forward's snapshot of it", async () => {
    const before = h.finished;
    h.fake.forwardMessage({ channelId: h.fake.dmChannel.id, source: { channelId: h.fake.textChannel.id, messageId: earlierForwarded.id as string } });
    await h.repliesFinished(before + 1);
    const { text } = await answer(h.fake.textChannel, {
      content: `${h.mention} what do the chairs cost?`,
      messageReference: { messageId: earlierForwarded.id as string },
      omitReferencedMessage: true,
    });
    expect(text).toMatch(/^Echo: \[Alice\]: what do the chairs cost\?\n/);
    expect(text).toContain('chairs,120');
  });

  it('answers the question without attachments when the replied-to message was deleted', async () => {
    const channel = h.fake.addChannel({ name: 'deleted-original' });
    const vision = visionRequests().length;
    const original = h.fake.sendMessage({
      channelId: channel.id,
      authorId: h.fake.users.bob.id,
      attachments: [{ filename: 'oops.png', bytes: fixture('images/marker.png') }],
    });
    h.fake.deleteUserMessage({ channelId: channel.id, messageId: original.id as string });
    const { text } = await answer(channel, { content: `${h.mention} what was that?`, messageReference: { messageId: original.id as string } });
    expect(text).toBe('Echo: [Alice]: what was that?');
    expect(visionRequests().length).toBe(vision);
    expect(downloadsOf(original)).toEqual([]);
  });

  it('passes a long replied-to message to the service whole', async () => {
    const long = `${'Lorem ipsum dolor sit amet. '.repeat(142)}The end.`;
    expect(long.length).toBeGreaterThan(3950);
    expect(long.length).toBeLessThanOrEqual(4000);
    const requests = h.emu.requests.length;
    await replyTo('long-original', { content: long }, { content: `${h.mention} translate this` });
    const [request] = h.emu.requests.slice(requests);
    const messages = (request!.body as { messages: { role: string; content: string }[] }).messages;
    expect(messages.at(-1)).toEqual({ role: 'user', content: `[Alice]: (replying to Bob: "${long}")\ntranslate this` });
  });
});
