import { MessageFlags, MessageReferenceType, type Client, type DMChannel, type Message, type TextChannel } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MessageFlag, startFakeDiscord, type FakeDiscord, type Json } from './index.ts';
import { readyClient } from './test-client.ts';

describe('fake discord: users replying to and forwarding messages', () => {
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

  /** Resolves with the next message discord.js emits whose id is `id`. */
  const created = (id: () => string | undefined) =>
    new Promise<Message>((resolve) => {
      client.on('messageCreate', (message) => {
        if (message.id === id()) resolve(message);
      });
    });
  const createEvent = (id: string) => fake.dispatched('MESSAGE_CREATE').find((e) => e.d.id === id)!.d;

  it('sends a reply with the original as referenced_message, which discord.js caches; GET shows it too', async () => {
    const original = fake.sendMessage({
      channelId: channel.id,
      authorId: fake.users.bob.id,
      content: 'look',
      attachments: [{ filename: 'a.txt', bytes: Buffer.from('hi') }],
    });
    let replyId: string | undefined;
    const arrived = created(() => replyId);
    replyId = fake.sendMessage({ channelId: channel.id, content: 'what is it?', messageReference: { messageId: original.id as string } })
      .id as string;
    const reply = await arrived;
    expect(createEvent(replyId)).toMatchObject({
      type: 19,
      message_reference: { type: 0, message_id: original.id, channel_id: channel.id, guild_id: fake.guild.id },
      referenced_message: { id: original.id, content: 'look', author: { id: fake.users.bob.id }, attachments: [{ filename: 'a.txt' }] },
    });
    expect(reply.reference).toMatchObject({ type: MessageReferenceType.Default, messageId: original.id });
    expect(channel.messages.cache.get(original.id as string)?.attachments.first()?.name).toBe('a.txt');
    expect(fake.messagePayload(replyId)).toMatchObject({ referenced_message: { id: original.id } });
    const fetched = await channel.messages.fetch({ message: replyId, force: true });
    expect(fetched.reference?.messageId).toBe(original.id);
  });

  it('can leave referenced_message out of the event, and sends it as null once the original is deleted', async () => {
    const original = fake.sendMessage({ channelId: channel.id, authorId: fake.users.bob.id, content: 'first' });
    const unfetched = fake.sendMessage({
      channelId: channel.id,
      content: 'about that',
      messageReference: { messageId: original.id as string },
      omitReferencedMessage: true,
    });
    expect(createEvent(unfetched.id as string)).not.toHaveProperty('referenced_message');
    expect(createEvent(unfetched.id as string)).toMatchObject({ message_reference: { message_id: original.id } });
    expect(unfetched).toMatchObject({ referenced_message: { id: original.id } });

    fake.deleteUserMessage({ channelId: channel.id, messageId: original.id as string });
    const late = fake.sendMessage({ channelId: channel.id, content: 'what was it?', messageReference: { messageId: original.id as string } });
    expect(createEvent(late.id as string)).toMatchObject({ type: 19, referenced_message: null, message_reference: { message_id: original.id } });
    const gone = await channel.messages.fetch({ message: original.id as string, force: true }).catch((error: { code?: number }) => error.code);
    expect(gone).toBe(10008);
  });

  it('forwards a message as type 0 with no content, a FORWARD reference and a snapshot that discord.js maps', async () => {
    const original = fake.sendMessage({
      channelId: channel.id,
      authorId: fake.users.bob.id,
      content: `meeting at 9 <@${fake.users.alice.id}>`,
      attachments: [{ filename: 'agenda.txt', bytes: Buffer.from('1. budget') }],
    });
    const dm = (await client.users.createDM(fake.users.alice.id)) as DMChannel;
    let forwardId: string | undefined;
    const arrived = created(() => forwardId);
    forwardId = fake.forwardMessage({ channelId: dm.id, source: { channelId: channel.id, messageId: original.id as string } }).id as string;

    const event = createEvent(forwardId);
    expect(event).toMatchObject({
      type: 0,
      content: '',
      attachments: [],
      flags: MessageFlag.HasSnapshot,
      message_reference: { type: 1, message_id: original.id, channel_id: channel.id, guild_id: fake.guild.id },
      message_snapshots: [
        {
          message: {
            type: 0,
            content: `meeting at 9 <@${fake.users.alice.id}>`,
            mentions: [{ id: fake.users.alice.id }],
            flags: 0,
            attachments: [{ filename: 'agenda.txt', content_type: 'text/plain; charset=utf-8' }],
          },
        },
      ],
    });
    expect(event).not.toHaveProperty('referenced_message');
    const snapshotFields = Object.keys((event.message_snapshots as { message: Json }[])[0]!.message);
    expect(snapshotFields).not.toContain('id');
    expect(snapshotFields).not.toContain('author');

    const forward = await arrived;
    expect(forward.reference?.type).toBe(MessageReferenceType.Forward);
    expect(forward.flags.has(MessageFlags.HasSnapshot)).toBe(true);
    const snapshot = forward.messageSnapshots.get(original.id as string)!;
    expect(snapshot.content).toBe(`meeting at 9 <@${fake.users.alice.id}>`);
    const download = await fetch(snapshot.attachments.first()!.url);
    expect(await download.text()).toBe('1. budget');

    fake.editUserMessage({ channelId: channel.id, messageId: original.id as string, content: 'meeting moved' });
    expect(fake.messagePayload(forwardId)).toMatchObject({ message_snapshots: [{ message: { content: `meeting at 9 <@${fake.users.alice.id}>` } }] });
  });

  it('forwards from a server the bot is not in, whose events the bot never gets', async () => {
    const { alice, bob } = fake.users;
    const elsewhere = fake.addGuild({ name: 'Book Club', memberIds: [alice.id, bob.id], withBot: false });
    const reading = fake.addChannel({ guildId: elsewhere.id, name: 'reading' });
    const source = fake.sendMessage({ channelId: reading.id, authorId: bob.id, content: 'Next book: Dune' });
    let forwardId: string | undefined;
    const arrived = created(() => forwardId);
    forwardId = fake.forwardMessage({ channelId: fake.dmChannel.id, source: { channelId: reading.id, messageId: source.id as string } }).id as string;
    const forward = await arrived;
    expect(fake.dispatched().filter((e) => e.d.guild_id === elsewhere.id || e.d.id === elsewhere.id)).toEqual([]);
    expect(client.channels.cache.has(reading.id)).toBe(false);
    expect(forward.messageSnapshots.get(source.id as string)?.content).toBe('Next book: Dune');
  });

  it('keeps a forwarded voice message flagged as one, and refuses what Discord refuses', async () => {
    const voice = fake.sendMessage({
      channelId: channel.id,
      authorId: fake.users.bob.id,
      flags: MessageFlag.IsVoiceMessage,
      attachments: [{ filename: 'voice-message.ogg', bytes: Buffer.from('OggS'), durationSecs: 1, waveform: 'AAAA' }],
    });
    const forward = fake.forwardMessage({ channelId: fake.dmChannel.id, source: { channelId: channel.id, messageId: voice.id as string } });
    expect(forward).toMatchObject({ message_snapshots: [{ message: { flags: MessageFlag.IsVoiceMessage, attachments: [{ duration_secs: 1 }] } }] });

    const stranger = fake.addUser({ username: 'stranger' });
    expect(() =>
      fake.forwardMessage({ channelId: fake.dmChannelFor(stranger.id).id, source: { channelId: channel.id, messageId: voice.id as string } }),
    ).toThrow(/cannot see/);
    fake.deleteUserMessage({ channelId: channel.id, messageId: voice.id as string });
    expect(() => fake.forwardMessage({ channelId: fake.dmChannel.id, source: { channelId: channel.id, messageId: voice.id as string } })).toThrow();
  });
});
