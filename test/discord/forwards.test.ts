import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelType, MessageFlag, type ChannelRecord, type Json } from '../fakes/discord/index.ts';
import { ONE_SECOND_BUCKETS, startHarness, type Harness } from './harness.ts';

const fixture = (path: string) => readFileSync(new URL(`../fixtures/${path}`, import.meta.url));
const WAVEFORM = Buffer.alloc(40, 100).toString('base64');

describe('discord: forwarded messages', () => {
  let h: Harness;
  let transcript = '';

  beforeAll(async () => {
    h = await startHarness({ fake: { rateLimits: ONE_SECOND_BUCKETS }, emulator: { transcribe: () => transcript } });
  });

  afterAll(async () => {
    await h.close();
  });

  /** Bob posts a message in a fresh channel of the server (where Herald stays quiet without a mention). */
  function bobPosts(
    name: string,
    message: { content?: string; attachments?: { filename: string; bytes: Buffer; durationSecs?: number; waveform?: string }[]; flags?: number },
  ): Json {
    const channel = h.fake.addChannel({ name });
    return h.fake.sendMessage({ channelId: channel.id, authorId: h.fake.users.bob.id, ...message });
  }

  /** Alice forwards `source` into `channel`; resolves with the text of Herald's messages after the forward. */
  async function forward(source: Json, channel: ChannelRecord = h.fake.dmChannel): Promise<string> {
    const before = h.finished;
    const sent = h.fake.forwardMessage({ channelId: channel.id, source: { channelId: source.channel_id as string, messageId: source.id as string } });
    await h.repliesFinished(before + 1);
    return h
      .botMessages(channel.id)
      .filter((m) => BigInt(m.id) > BigInt(sent.id as string))
      .map((m) => m.content)
      .join('\n');
  }

  it('reads the text of a message forwarded into a DM, marked as forwarded', async () => {
    const source = bobPosts('plans', { content: `Lunch moved to 1pm, <@${h.fake.users.alice.id}> brings dessert` });
    expect(await forward(source)).toBe('Echo: (forwarded message) Lunch moved to 1pm, @Alice brings dessert');
  });

  it('describes an image forwarded into a DM', async () => {
    const vision = h.emu.requests.filter((r) => (r.body as { model?: string }).model === h.config.models.vision).length;
    const source = bobPosts('photos', { attachments: [{ filename: 'whiteboard.png', bytes: fixture('images/marker.png') }] });
    const text = await forward(source);
    expect(text).toMatch(/^Echo: Describe this image\.\nI see 1 image\.\nImage 1: image\/\w+ \d+x\d+$/);
    expect(h.emu.requests.filter((r) => (r.body as { model?: string }).model === h.config.models.vision)).toHaveLength(vision + 1);
  });

  it('reads a file forwarded with its text into a DM', async () => {
    const source = bobPosts('files', { content: 'the config', attachments: [{ filename: 'app.toml', bytes: Buffer.from('retries = 3\n') }] });
    const text = await forward(source);
    expect(text).toMatch(/^Echo: \(forwarded message\) the config\n/);
    expect(text).toContain('app.toml');
    expect(text).toContain('retries = 3');
  });

  it('transcribes and answers a voice message forwarded into a DM', async () => {
    transcript = 'remind me to call the bank';
    const source = bobPosts('voice', {
      flags: MessageFlag.IsVoiceMessage,
      attachments: [{ filename: 'voice-message.ogg', bytes: fixture('audio/voice-note.ogg'), durationSecs: 2.4, waveform: WAVEFORM }],
    });
    expect(await forward(source)).toBe(
      '🎙️ **Voice message**\n> remind me to call the bank\n\nEcho: (voice message, transcribed) remind me to call the bank',
    );
  });

  it('reads a forward from a server Herald is not in', async () => {
    const { alice, bob } = h.fake.users;
    const elsewhere = h.fake.addGuild({ name: 'Book Club', memberIds: [alice.id, bob.id], withBot: false });
    const channel = h.fake.addChannel({ guildId: elsewhere.id, name: 'reading' });
    const source = h.fake.sendMessage({
      channelId: channel.id,
      authorId: bob.id,
      content: 'Next book: Dune',
      attachments: [{ filename: 'list.md', bytes: Buffer.from('- Dune\n- Emma\n') }],
    });
    const text = await forward(source);
    expect(text).toMatch(/^Echo: \(forwarded message\) Next book: Dune\n/);
    expect(text).toContain('- Emma');
  });

  it("reads a forward in Herald's own thread", async () => {
    const thread = h.fake.addChannel({
      name: 'Herald thread',
      type: ChannelType.PublicThread,
      parentId: h.fake.textChannel.id,
      ownerId: h.fake.botUser.id,
    });
    const source = bobPosts('announcements', { content: 'Office closed on Monday' });
    expect(await forward(source, thread)).toBe('Echo: [Alice]: (forwarded message) Office closed on Monday');
  });

  it('ignores a forward in a server channel, as any message without a mention', async () => {
    const channel = h.fake.addChannel({ name: 'busy' });
    const source = bobPosts('elsewhere', { content: 'Deploy at noon', attachments: [{ filename: 'plan.txt', bytes: Buffer.from('step 1\n') }] });
    const requests = h.emu.requests.length;
    const downloads = h.fake.cdnRequests.length;
    h.fake.forwardMessage({ channelId: channel.id, source: { channelId: source.channel_id as string, messageId: source.id as string } });
    const before = h.finished;
    h.fake.sendMessage({ channelId: channel.id, content: `${h.mention} ping` });
    await h.repliesFinished(before + 1);
    expect(h.botMessages(channel.id).map((m) => m.content)).toEqual(['Echo: [Alice]: ping']);
    expect(h.emu.requests.length - requests).toBe(1);
    expect(h.fake.cdnRequests.length).toBe(downloads);
  });
});
