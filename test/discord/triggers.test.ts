import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCommands } from '../../adapters/discord/index.ts';
import { Permission, type ChannelRecord, type Json } from '../fakes/discord/index.ts';
import { ONE_SECOND_BUCKETS, startHarness, type Harness } from './harness.ts';

describe('discord: channel triggers set by admins', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ fake: { rateLimits: ONE_SECOND_BUCKETS }, env: { QUOTA_USER_PER_MINUTE: '100' } });
    await registerCommands(h.config);
  });

  afterAll(async () => {
    await h.close();
  });

  /** A channel's /settings, as the server owner sets them there, once Herald has answered. */
  async function configure(channel: ChannelRecord, options: Record<string, string>): Promise<string> {
    const before = h.finished;
    const record = h.fake.invokeCommand({
      name: 'settings',
      channelId: channel.id,
      userId: h.fake.users.owner.id,
      options: { scope: 'channel', ...options } as never,
    });
    await h.repliesFinished(before + 1);
    return h.fake.message(record.originalMessageId!)!.content;
  }

  /** Sends messages and waits until `answers` of them are answered. */
  async function send(answers: number, ...messages: Array<Parameters<Harness['fake']['sendMessage']>[0]>): Promise<Json[]> {
    const before = h.finished;
    const sent = messages.map((message) => h.fake.sendMessage(message));
    await h.repliesFinished(before + answers);
    return sent;
  }

  const reactionPuts = (messageId: string) =>
    h.fake.requests
      .filter((r) => r.method === 'PUT' && r.params.message_id === messageId && r.route?.includes('/reactions/'))
      .map((r) => r.params.emoji);

  it('answers every message in a trigger channel without a mention, but not bots, nor messages for someone else', async () => {
    const { fake } = h;
    const channel = fake.addChannel({ name: 'ask-herald' });
    expect(await configure(channel, { answer_all: 'on' })).toContain('answer every message: on');
    const robot = fake.addUser({ username: 'robot', bot: true });
    fake.addMember({ userId: robot.id });
    await send(
      1,
      { channelId: channel.id, authorId: robot.id, content: 'bots talking to bots' },
      { channelId: channel.id, authorId: fake.users.bob.id, content: `<@${fake.users.alice.id}> can you check the build?` },
      { channelId: channel.id, content: 'what is the capital of France?' },
    );
    expect(h.botMessages(channel.id).map((m) => m.content)).toEqual(['Echo: [Alice]: what is the capital of France?']);

    // Elsewhere a message still needs a mention.
    const quiet = fake.addChannel({ name: 'quiet-here' });
    await send(1, { channelId: quiet.id, content: 'not for Herald' }, { channelId: quiet.id, content: `${h.mention} but this is` });
    expect(h.botMessages(quiet.id).map((m) => m.content)).toEqual(['Echo: [Alice]: but this is']);
  });

  it('opens a thread named after a mention and goes on there without mentions, with the earlier context', async () => {
    const { fake } = h;
    const channel = fake.addChannel({ name: 'threads' });
    await configure(channel, { auto_thread: 'on' });
    const words = 'Which planets in our solar system have rings, and which of those rings can be seen from Earth with binoculars?';
    const question = `${h.mention} ${words}`;
    const [asked] = await send(1, { channelId: channel.id, content: question });
    const threadId = fake.message(asked!.id as string)!.threadId!;
    const thread = fake.channel(threadId)!;
    expect(thread.parentId).toBe(channel.id);
    expect(thread.ownerId).toBe(fake.botUser.id);
    expect(thread.name!.length).toBeLessThanOrEqual(100);
    expect(words.length).toBeGreaterThan(100);
    expect(thread.name).toBe(`${words.slice(0, 99).trimEnd()}…`);
    expect(h.botMessages(channel.id)).toEqual([]);
    expect(h.botMessages(threadId).map((m) => m.content)).toEqual([`Echo: [Alice]: ${words}`]);

    await send(1, { channelId: threadId, content: 'recall' });
    expect(h.botMessages(threadId)[1]?.content).toBe(`You first said: [Alice]: ${words}`);
    // Addressed to someone else, a message in Herald's thread is left to them.
    await send(
      1,
      { channelId: threadId, authorId: fake.users.bob.id, content: `<@${fake.users.alice.id}> nice one` },
      { channelId: threadId, content: 'count turns' },
    );
    expect(
      h
        .botMessages(threadId)
        .map((m) => m.content)
        .slice(2),
    ).toEqual(['Messages: 6 (system 1, user 3, assistant 2, tool 0)']);
  });

  it('answers in the channel where Herald may not open threads', async () => {
    const { fake } = h;
    const channel = fake.addChannel({
      name: 'no-threads',
      permissionOverwrites: [{ id: fake.roles.bot.id, type: 0, allow: '0', deny: String(Permission.CreatePublicThreads) }],
    });
    await configure(channel, { auto_thread: 'on' });
    const [asked] = await send(1, { channelId: channel.id, content: `${h.mention} still here?` });
    expect(fake.message(asked!.id as string)!.threadId).toBeNull();
    expect(h.botMessages(channel.id).map((m) => m.content)).toEqual(['Echo: [Alice]: still here?']);
  });

  it('answers a message starting with a trigger word, at a word boundary, in any case', async () => {
    const { fake } = h;
    const channel = fake.addChannel({ name: 'words' });
    expect(await configure(channel, { trigger_words: 'Herald, hey herald' })).toContain('trigger words: “herald”, “hey herald”');
    await send(
      2,
      { channelId: channel.id, content: 'Heralds were messengers, long ago' },
      { channelId: channel.id, content: 'they say herald, nothing more' },
      { channelId: channel.id, content: 'herald, what is new?' },
      { channelId: channel.id, content: 'HEY HERALD: hello' },
    );
    expect(
      h
        .botMessages(channel.id)
        .map((m) => m.content)
        .sort(),
    ).toEqual(['Echo: [Alice]: HEY HERALD: hello', 'Echo: [Alice]: herald, what is new?']);
  });

  it('marks questions 👀 then ✅ or ⚠️ when status reactions are on, and leaves them alone when off', async () => {
    const { fake, emu } = h;
    const channel = fake.addChannel({ name: 'reactions' });
    await configure(channel, { status_reactions: 'on' });
    const [answered] = await send(1, { channelId: channel.id, content: `${h.mention} hi` });
    const id = answered!.id as string;
    expect(reactionPuts(id)).toEqual(['👀', '✅']);
    expect(fake.reactions(id)).toEqual({ '✅': [fake.botUser.id] });

    emu.faults.push({ status: 400, times: 5 });
    const [failed] = await send(1, { channelId: channel.id, content: `${h.mention} this one fails` });
    emu.faults.length = 0;
    expect(h.botMessages(channel.id).at(-1)?.content).toMatch(/⚠️|could not|failed|went wrong/i);
    expect(fake.reactions(failed!.id as string)).toEqual({ '⚠️': [fake.botUser.id] });

    const [plain] = await send(1, { channelId: fake.textChannel.id, content: `${h.mention} no reactions here` });
    expect(reactionPuts(plain!.id as string)).toEqual([]);
    expect(fake.reactions(plain!.id as string)).toEqual({});
  });
});
