import { DiscordAPIError, MessageFlags, Routes, type Client, type TextChannel } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from './index.ts';
import { readyClient } from './test-client.ts';

const PNG_1x1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAYAAAC56t6BAAAAEklEQVR4nGP4z8DwHwyBNAMDAEQ6B/mJ5ciYAAAAAElFTkSuQmCC', 'base64');

async function apiError(promise: Promise<unknown>): Promise<DiscordAPIError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DiscordAPIError);
  return error as DiscordAPIError;
}

describe('fake discord: bot messages through discord.js', () => {
  let fake: FakeDiscord;
  let client: Client;
  let channel: TextChannel;

  beforeEach(async () => {
    fake = await startFakeDiscord({ heartbeatIntervalMs: 1000 });
    client = await readyClient(fake);
    channel = client.channels.cache.get(fake.textChannel.id) as TextChannel;
  });

  afterEach(async () => {
    await client.destroy();
    await fake.close();
  });

  it('sends with allowed_mentions parsing nothing: recorded, and nobody is pinged', async () => {
    const sent = await channel.send({
      content: `hi <@${fake.users.alice.id}> @everyone`,
      allowedMentions: { parse: [] },
    });
    const stored = fake.messages(fake.textChannel.id).at(-1)!;
    expect(stored.id).toBe(sent.id);
    expect(stored.allowedMentions).toEqual({ parse: [] });
    expect(stored.mentionIds).toEqual([]);
    expect(stored.mentionEveryone).toBe(false);
    expect(sent.mentions.users.size).toBe(0);
    const request = fake.requests.find((r) => r.method === 'POST' && r.route === '/channels/:channel_id/messages');
    expect(request?.body).toMatchObject({ allowed_mentions: { parse: [] } });
  });

  it('enforce_nonce: the same nonce from the same author returns the message it made, and creates nothing', async () => {
    const post = (body: Record<string, unknown>) => client.rest.post(Routes.channelMessages(channel.id), { body }) as Promise<{ id: string }>;
    const first = await post({ content: 'once', nonce: 'run-1', enforce_nonce: true });
    const again = await post({ content: 'once, retried', nonce: 'run-1', enforce_nonce: true });
    expect(again.id).toBe(first.id);
    expect(fake.messages(fake.textChannel.id).map((m) => m.content)).toEqual(['once']);
    expect(fake.dispatched('MESSAGE_CREATE').filter((e) => e.d.nonce === 'run-1')).toHaveLength(1);
    // Without enforce_nonce a nonce is only echoed; another nonce is another message.
    const unenforced = await post({ content: 'twice', nonce: 'run-1' });
    const other = await post({ content: 'other', nonce: 'run-2', enforce_nonce: true });
    expect(new Set([first.id, unenforced.id, other.id]).size).toBe(3);
    const tooLong = await apiError(post({ content: 'x', nonce: 'n'.repeat(26), enforce_nonce: true }));
    expect(tooLong.code).toBe(50035);
  });

  it('pings users by default and edits replace content, with MESSAGE_UPDATE to the bot', async () => {
    const sent = await channel.send(`hello <@${fake.users.bob.id}>`);
    expect(fake.message(sent.id)!.mentionIds).toEqual([fake.users.bob.id]);
    const updated = new Promise<string>((resolve) => client.on('messageUpdate', (_old, m) => resolve(m.content ?? '')));
    const edited = await sent.edit({ content: 'edited text', allowedMentions: { parse: [] } });
    expect(edited.editedTimestamp).not.toBeNull();
    expect(await updated).toBe('edited text');
    const stored = fake.message(sent.id)!;
    expect(stored.content).toBe('edited text');
    expect(stored.mentionIds).toEqual([]);
    expect(fake.dispatched('MESSAGE_UPDATE').some((e) => e.d.id === sent.id)).toBe(true);
  });

  it('replies with message_reference: type 19 REPLY pointing at the user message', async () => {
    const incoming = fake.sendMessage({ channelId: fake.textChannel.id, content: 'question?' });
    const original = await channel.messages.fetch(incoming.id as string);
    const reply = await original.reply({ content: 'answer', allowedMentions: { repliedUser: false } });
    expect(reply.reference?.messageId).toBe(incoming.id);
    const stored = fake.message(reply.id)!;
    expect(stored.type).toBe(19);
    expect(stored.mentionIds).toEqual([]);
    const bad = await apiError(channel.send({ content: 'x', reply: { messageReference: '1234567890123456789', failIfNotExists: true } }));
    expect(bad.code).toBe(50035);
  });

  it('uploads files as multipart (payload_json + files[n]) and serves them from the CDN', async () => {
    const sent = await channel.send({
      content: 'see attached',
      files: [
        { attachment: PNG_1x1, name: 'my picture.png', description: 'a tiny image' },
        { attachment: Buffer.from('notes'), name: 'notes.txt' },
      ],
    });
    const request = fake.requests.find((r) => r.method === 'POST' && r.files.length > 0)!;
    expect(request.headers.contentType).toMatch(/^multipart\/form-data/);
    expect(request.files.map((f) => f.field)).toEqual(['files[0]', 'files[1]']);
    expect(request.body).toMatchObject({ content: 'see attached', attachments: [{ id: '0', description: 'a tiny image' }, { id: '1' }] });
    const image = sent.attachments.find((a) => a.name === 'my_picture.png')!;
    expect(image).toMatchObject({ width: 2, height: 3, contentType: 'image/png', description: 'a tiny image', size: PNG_1x1.length });
    const download = await fetch(image.url);
    expect(download.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await download.arrayBuffer()).equals(PNG_1x1)).toBe(true);
    const unsigned = await fetch(image.url.split('?')[0]!);
    expect(unsigned.status).toBe(404);
  });

  it('edits attachments: keeps listed ones and adds new uploads (multipart PATCH)', async () => {
    const sent = await channel.send({ files: [{ attachment: Buffer.from('one'), name: 'one.txt' }] });
    const kept = sent.attachments.first()!;
    const edited = await sent.edit({ attachments: [kept], files: [{ attachment: Buffer.from('two'), name: 'two.txt' }] });
    expect(edited.attachments.map((a) => a.name).sort()).toEqual(['one.txt', 'two.txt']);
    const patch = fake.requests.find((r) => r.method === 'PATCH')!;
    expect(patch.files).toHaveLength(1);
    const cleared = await sent.edit({ content: 'now text only', attachments: [] });
    expect(cleared.attachments.size).toBe(0);
  });

  it('rejects content over 2000 characters with 50035 and a field error', async () => {
    const error = await apiError(channel.send('x'.repeat(2001)));
    expect(error.status).toBe(400);
    expect(error.code).toBe(50035);
    expect(error.rawError).toMatchObject({
      message: 'Invalid Form Body',
      errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } },
    });
    expect(fake.messages(fake.textChannel.id)).toHaveLength(0);
  });

  it('enforces embed limits: 10 embeds, 4096-char description, 6000 total', async () => {
    const many = Array.from({ length: 11 }, (_, i) => ({ title: `e${i}` }));
    expect((await apiError(channel.send({ embeds: many }))).code).toBe(50035);
    const long = await apiError(channel.send({ embeds: [{ description: 'y'.repeat(4097) }] }));
    expect(long.rawError).toMatchObject({ errors: { embeds: { 0: { description: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } } } } });
    const total = await apiError(channel.send({ embeds: [{ description: 'z'.repeat(4000) }, { description: 'z'.repeat(2001) }] }));
    expect(total.rawError).toMatchObject({ errors: { embeds: { _errors: [{ code: 'MAX_EMBED_SIZE_EXCEEDED' }] } } });
    const ok = await channel.send({ embeds: [{ title: 'fine', description: 'ok', fields: [{ name: 'a', value: 'b' }] }] });
    expect(ok.embeds[0]?.title).toBe('fine');
  });

  it('refuses an empty message with 50006', async () => {
    const error = await apiError(channel.send({ content: '   ' }));
    expect(error.code).toBe(50006);
  });

  it('SUPPRESS_EMBEDS hides embeds and can be toggled by an edit', async () => {
    const sent = await channel.send({ content: 'link', embeds: [{ title: 'card' }], flags: MessageFlags.SuppressEmbeds });
    expect(sent.embeds).toHaveLength(0);
    expect(sent.flags.has(MessageFlags.SuppressEmbeds)).toBe(true);
    const shown = await sent.suppressEmbeds(false);
    expect(shown.embeds).toHaveLength(1);
  });

  it('validates voice messages like Discord and refuses to edit them', async () => {
    const ogg = Buffer.from('OggS fake opus bytes');
    const voice = { attachment: ogg, name: 'voice-message.ogg', duration: 2.5, waveform: Buffer.alloc(32, 128).toString('base64') };
    const sent = await channel.send({ files: [voice], flags: MessageFlags.IsVoiceMessage });
    expect(sent.flags.has(MessageFlags.IsVoiceMessage)).toBe(true);
    expect(sent.attachments.first()).toMatchObject({ duration: 2.5, contentType: 'audio/ogg', waveform: voice.waveform });
    expect((await apiError(sent.edit({ content: 'changed' }))).code).toBe(50162);

    expect((await apiError(channel.send({ content: 'words', files: [voice], flags: MessageFlags.IsVoiceMessage }))).code).toBe(50159);
    expect((await apiError(channel.send({ files: [voice, voice], flags: MessageFlags.IsVoiceMessage }))).code).toBe(50160);
    expect((await apiError(channel.send({ files: [{ attachment: ogg, name: 'v.ogg' }], flags: MessageFlags.IsVoiceMessage }))).code).toBe(50161);
    expect(
      (
        await apiError(
          channel.send({ files: [{ attachment: PNG_1x1, name: 'x.png', duration: 1, waveform: 'AA==' }], flags: MessageFlags.IsVoiceMessage }),
        )
      ).code,
    ).toBe(50160);
  });

  it('deletes messages with MESSAGE_DELETE and 404s them afterwards', async () => {
    const sent = await channel.send('temporary');
    const deleted = new Promise<string>((resolve) => client.on('messageDelete', (m) => resolve(m.id)));
    await sent.delete();
    expect(await deleted).toBe(sent.id);
    expect(fake.messages(fake.textChannel.id)).toHaveLength(0);
    const error = await apiError(channel.messages.fetch({ message: sent.id, force: true }));
    expect(error.code).toBe(10008);
  });

  it('fetches history newest first with limit/before', async () => {
    for (const text of ['one', 'two', 'three']) fake.sendMessage({ channelId: fake.textChannel.id, content: text });
    const page = await channel.messages.fetch({ limit: 2 });
    expect([...page.values()].map((m) => m.content)).toEqual(['three', 'two']);
    const older = await channel.messages.fetch({ before: page.last()!.id });
    expect([...older.values()].map((m) => m.content)).toEqual(['one']);
  });

  it('shows typing (204) and opens threads from a message and in a channel', async () => {
    await channel.sendTyping();
    expect(fake.requests.find((r) => r.route === '/channels/:channel_id/typing')?.status).toBe(204);

    const starter = await channel.send('thread starter');
    const threadEvent = new Promise<string>((resolve) => client.on('threadCreate', (t) => resolve(t.id)));
    const thread = await starter.startThread({ name: 'Discussion', autoArchiveDuration: 60 });
    expect(thread.id).toBe(starter.id);
    expect(await threadEvent).toBe(thread.id);
    const inThread = await thread.send('inside the thread');
    expect(fake.message(inThread.id)?.channelId).toBe(thread.id);
    const again = client.rest.post(`/channels/${channel.id}/messages/${starter.id}/threads`, { body: { name: 'again' } });
    expect((await apiError(again)).code).toBe(160004);

    const standalone = await channel.threads.create({ name: 'side topic' });
    expect(fake.channel(standalone.id)?.parentId).toBe(fake.textChannel.id);
  });

  it('denies sending where the bot lacks SEND_MESSAGES (50013) or VIEW_CHANNEL (50001)', async () => {
    const { PermissionFlagsBits } = await import('discord.js');
    const readOnly = fake.addChannel({
      name: 'announcements',
      permissionOverwrites: [{ id: fake.guild.id, type: 0, allow: '0', deny: String(PermissionFlagsBits.SendMessages) }],
    });
    const hidden = fake.addChannel({
      name: 'staff',
      permissionOverwrites: [{ id: fake.guild.id, type: 0, allow: '0', deny: String(PermissionFlagsBits.ViewChannel) }],
    });
    await fake.waitFor(() => client.channels.cache.has(hidden.id), { description: 'CHANNEL_CREATE' });
    const noSend = await apiError((client.channels.cache.get(readOnly.id) as TextChannel).send('hi'));
    expect(noSend.code).toBe(50013);
    const noView = await apiError(client.rest.post(`/channels/${hidden.id}/messages`, { body: { content: 'hi' } }));
    expect(noView.code).toBe(50001);
  });

  it("sends a user's edit and a link unfurl as MESSAGE_UPDATE with the whole message; only the edit is marked edited", async () => {
    const bot = `<@${fake.botUser.id}>`;
    const sent = fake.sendMessage({ channelId: fake.textChannel.id, content: `${bot} see https://example.com/a` });
    const id = sent.id as string;
    const updates = () =>
      fake
        .dispatched('MESSAGE_UPDATE')
        .filter((e) => e.d.id === id)
        .map((e) => e.d);

    fake.unfurlLinks({ channelId: fake.textChannel.id, messageId: id });
    expect(updates()[0]).toMatchObject({
      content: `${bot} see https://example.com/a`,
      edited_timestamp: null,
      embeds: [{ type: 'link', url: 'https://example.com/a' }],
      author: { id: fake.users.alice.id },
      mentions: [{ id: fake.botUser.id }],
    });

    const later = Date.now() + 11 * 60_000;
    fake.editUserMessage({ channelId: fake.textChannel.id, messageId: id, content: 'no mention any more', at: later });
    expect(updates()[1]).toMatchObject({
      content: 'no mention any more',
      edited_timestamp: new Date(later).toISOString().replace('Z', '000+00:00'),
      mentions: [],
    });

    const reply = fake.sendMessage({
      channelId: fake.textChannel.id,
      authorId: fake.users.bob.id,
      content: 'agreed',
      messageReference: { messageId: id },
    });
    fake.editUserMessage({ channelId: fake.textChannel.id, messageId: reply.id as string, content: 'agreed!' });
    expect(fake.message(reply.id as string)!.mentionIds).toEqual([fake.users.alice.id]);
  });
});
