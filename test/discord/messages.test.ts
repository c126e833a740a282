import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelType } from '../fakes/discord/index.ts';
import { ONE_SECOND_BUCKETS, startHarness, type Harness } from './harness.ts';

describe('discord: which messages Herald answers, and what it remembers', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ fake: { rateLimits: ONE_SECOND_BUCKETS } });
  });

  afterAll(async () => {
    await h.close();
  });

  it('answers an @mention in a channel as a reply to that message, without pinging anyone', async () => {
    const { fake } = h;
    const before = h.finished;
    const asked = fake.sendMessage({ channelId: fake.textChannel.id, content: `${h.mention} hello @everyone` });
    await h.repliesFinished(before + 1);
    const [reply] = h.botMessages(fake.textChannel.id);
    expect(reply?.content).toBe('Echo: [Alice]: hello @everyone');
    expect(reply?.reference?.messageId).toBe(asked.id);
    expect(reply?.mentionEveryone).toBe(false);
    expect(reply?.mentionIds).toEqual([]);
    const requests = h.messageRequests();
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) expect(request.body).toMatchObject({ allowed_mentions: { parse: [], replied_user: false } });
    expect(fake.requests.some((r) => r.path === `/channels/${fake.textChannel.id}/typing`)).toBe(true);
  });

  it('answers any direct message (DM channels arrive without CHANNEL_CREATE)', async () => {
    const { fake } = h;
    const before = h.finished;
    fake.sendMessage({ channelId: fake.dmChannel.id, content: 'hi there' });
    await h.repliesFinished(before + 1);
    expect(h.botMessages(fake.dmChannel.id).map((m) => m.content)).toEqual(['Echo: hi there']);
  });

  it('ignores other bots, messages without a mention, and keeps quiet about its own messages', async () => {
    const { fake } = h;
    const channel = fake.addChannel({ name: 'quiet' });
    const robot = fake.addUser({ username: 'robot', bot: true });
    fake.addMember({ userId: robot.id });
    fake.sendMessage({ channelId: channel.id, authorId: robot.id, content: `${h.mention} bots talking` });
    fake.sendMessage({ channelId: channel.id, content: 'no mention here' });
    const before = h.finished;
    fake.sendMessage({ channelId: channel.id, content: `${h.mention} only this one` });
    await h.repliesFinished(before + 1);
    expect(h.botMessages(channel.id).map((m) => m.content)).toEqual(['Echo: [Alice]: only this one']);
    expect(fake.interactions).toHaveLength(0);
  });

  it('follows a reply chain: replying to Herald continues the conversation, a new mention starts afresh', async () => {
    const { fake } = h;
    const channel = fake.addChannel({ name: 'chains' });
    let before = h.finished;
    fake.sendMessage({ channelId: channel.id, content: `${h.mention} my first words` });
    await h.repliesFinished(before + 1);
    const first = h.botMessages(channel.id)[0]!;

    before = h.finished;
    const followUp = fake.sendMessage({ channelId: channel.id, content: 'recall', messageReference: { messageId: first.id } });
    await h.repliesFinished(before + 1);
    expect(h.botMessages(channel.id)[1]?.content).toBe('You first said: [Alice]: my first words');

    // Bob replies to Alice's reply (not to Herald) and mentions Herald: still the same chain.
    before = h.finished;
    fake.sendMessage({
      channelId: channel.id,
      authorId: fake.users.bob.id,
      content: `${h.mention} count turns`,
      messageReference: { messageId: followUp.id as string },
    });
    await h.repliesFinished(before + 1);
    expect(h.botMessages(channel.id)[2]?.content).toMatch(/^Messages: \d+ \(system 1, user 3, assistant 2, tool 0\)$/);

    before = h.finished;
    fake.sendMessage({ channelId: channel.id, content: `${h.mention} recall` });
    await h.repliesFinished(before + 1);
    expect(h.botMessages(channel.id)[3]?.content).toBe('You first said: [Alice]: recall');
  });

  it('answers every message in a thread Herald started, remembering the thread', async () => {
    const { fake } = h;
    const thread = fake.addChannel({
      name: 'herald thread',
      type: ChannelType.PublicThread,
      parentId: fake.textChannel.id,
      ownerId: fake.botUser.id,
    });
    const other = fake.addChannel({ name: 'alice thread', type: ChannelType.PublicThread, parentId: fake.textChannel.id });
    fake.sendMessage({ channelId: other.id, content: 'not for Herald' });
    let before = h.finished;
    fake.sendMessage({ channelId: thread.id, content: 'thread opener' });
    await h.repliesFinished(before + 1);
    before = h.finished;
    fake.sendMessage({ channelId: thread.id, content: 'recall' });
    await h.repliesFinished(before + 1);
    expect(h.botMessages(thread.id).map((m) => m.content)).toEqual(['Echo: [Alice]: thread opener', 'You first said: [Alice]: thread opener']);
    expect(h.botMessages(other.id)).toEqual([]);
  });

  it('quotes the message replied to and never turns mentions in it into pings', async () => {
    const { fake } = h;
    const channel = fake.addChannel({ name: 'quotes' });
    const role = fake.addRole({ name: 'moderators', mentionable: true });
    const bobSaid = fake.sendMessage({
      channelId: channel.id,
      authorId: fake.users.bob.id,
      content: `hey <@${fake.users.alice.id}> and <@&${role.id}> @here`,
    });
    const before = h.finished;
    fake.sendMessage({ channelId: channel.id, content: `${h.mention} what does he mean?`, messageReference: { messageId: bobSaid.id as string } });
    await h.repliesFinished(before + 1);
    const [reply] = h.botMessages(channel.id);
    expect(reply?.content).toContain(`hey <@${fake.users.alice.id}> and <@&${role.id}> @here`);
    expect(reply).toMatchObject({ mentionIds: [], mentionRoleIds: [], mentionEveryone: false, allowedMentions: { parse: [], replied_user: false } });
  });
});
