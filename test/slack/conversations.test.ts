import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../fakes/slack/index.ts';
import { startSlackWorld, stopSlackWorld, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

describe('Herald on Slack (HTTP mode): mentions, direct messages, threads', () => {
  let fake: FakeSlack;
  let emu: Emulator;
  let herald: HeraldOnSlack;

  beforeEach(async () => {
    ({ fake, emu, herald } = await startSlackWorld());
  });

  afterEach(() => stopSlackWorld({ fake, emu, herald }));

  const botReplies = (channel = fake.channelId) => fake.botMessages(channel).filter((m) => m.fileIds.length === 0);

  it('answers a mention in its thread, streamed natively to the person who asked', async () => {
    const mention = fake.events.appMention({ text: 'hello there' });
    const delivery = await fake.deliverEvent(mention);
    expect(delivery.status).toBe(200);
    expect(delivery.ackMs).toBeLessThan(3000);
    const reply = await fake.waitFor(() => botReplies().find((m) => m.stream?.state === 'stopped'));
    expect(reply.thread_ts).toBe(mention.ts);
    expect(reply.stream?.recipientUserId).toBe(fake.userId);
    expect(reply.stream?.recipientTeamId).toBe(fake.teamId);
    // The mention addressing the bot is not part of the question; the speaker's name is.
    expect(reply.text).toBe('Echo: [alice]: hello there');
    expect(fake.count429()).toBe(0);
  });

  it('answers follow-ups in a thread it replied in, without a mention, as one conversation', async () => {
    const mention = fake.events.appMention({ text: 'my name is Ada' });
    await fake.deliverEvent(mention);
    await fake.waitFor(() => botReplies().find((m) => m.stream?.state === 'stopped'));
    const followUp = fake.events.threadReply({ text: 'recall', channel: fake.channelId, thread_ts: String(mention.ts) });
    await fake.deliverEvent(followUp);
    const second = await fake.waitFor(() => botReplies().filter((m) => m.stream?.state === 'stopped')[1]);
    expect(second.thread_ts).toBe(mention.ts);
    expect(second.text).toBe('You first said: [alice]: my name is Ada');
  });

  it('stays out of threads it has not replied in', async () => {
    const root = fake.events.message({ text: 'team chat', channel: fake.channelId });
    await fake.deliverEvent(fake.events.threadReply({ text: 'what do you think?', channel: fake.channelId, thread_ts: String(root.ts) }));
    await new Promise((r) => setTimeout(r, 300));
    expect(botReplies()).toEqual([]);
    expect(emu.requests).toHaveLength(0);
  });

  it('answers a direct message at the top level of the DM', async () => {
    const dm = fake.events.directMessage({ text: 'hi in private' });
    await fake.deliverEvent(dm);
    const reply = await fake.waitFor(() => botReplies(fake.dmChannelId)[0]);
    expect(reply.thread_ts).toBeUndefined();
    // One person, no speaker names.
    await fake.waitFor(() => reply.text === 'Echo: hi in private');
    expect(fake.calls('chat.postMessage')[0]?.args.markdown_text).toBeDefined();
  });

  it('ignores other bots, its own messages and edits', async () => {
    const other = fake.addUser({ name: 'otherbot', is_bot: true });
    await fake.deliverEvent({ ...fake.events.directMessage({ text: 'bot talk', user: other.id }), bot_id: 'B0OTHER', subtype: 'bot_message' });
    await fake.deliverEvent({ ...fake.events.directMessage({ text: 'app talk', user: other.id }), bot_id: 'B0OTHER' });
    await fake.deliverEvent(fake.events.directMessage({ text: 'my own words', user: fake.botUserId }));
    await fake.deliverEvent({ ...fake.events.directMessage({ text: 'edited' }), subtype: 'message_changed' });
    await new Promise((r) => setTimeout(r, 300));
    expect(fake.calls().filter((c) => c.method.startsWith('chat.'))).toEqual([]);
    expect(emu.requests).toHaveLength(0);
  });

  it('numbers the sources of a searched answer and lists them under it', async () => {
    const mention = fake.events.appMention({ text: 'what is the latest news?' });
    await fake.deliverEvent(mention);
    const reply = await fake.waitFor(() => botReplies().find((m) => m.stream?.state === 'stopped'));
    expect(reply.text).toMatch(/\[1\]/);
    const sources = JSON.stringify(reply.blocks);
    expect(sources).toContain('*Sources*');
    expect(sources).toMatch(/<https:\/\/news1\.example\.com[^|]*\|\[1\] /);
    expect(sources).toMatch(/\|\[2\] /);
  });

  it("searches the thread's messages when the model asks, each one cited by its permalink", async () => {
    const root = fake.events.message({ text: 'Deploy is at 5pm', channel: fake.channelId });
    const bob = fake.addUser({ name: 'bob' });
    fake.events.threadReply({ text: `I will bring <@${fake.userId}> the logs`, user: bob.id, channel: fake.channelId, thread_ts: String(root.ts) });
    await fake.deliverEvent(fake.events.appMention({ text: 'search the messages here', thread_ts: String(root.ts) }));
    const reply = await fake.waitFor(() => botReplies().find((m) => m.stream?.state === 'stopped'));
    expect(reply.thread_ts).toBe(root.ts);
    expect(reply.text).toMatch(/^Tool results:\n- search_messages: The latest messages, newest first:/);
    expect(reply.text).toMatch(/\[\d\] [^\n]* · #general · alice: Deploy is at 5pm/);
    expect(reply.text).toMatch(/\[\d\] [^\n]* · #general · bob: I will bring @alice the logs/);
    const sources = JSON.stringify(reply.blocks);
    expect(sources).toContain(`/archives/${fake.channelId}/p${String(root.ts).replace('.', '')}`);
  });

  it('falls back to posting and editing when streaming is refused, with no 429', async () => {
    fake.injectError('chat.startStream', 'not_allowed_token_type');
    const mention = fake.events.appMention({ text: 'long 300' });
    await fake.deliverEvent(mention);
    const reply = await fake.waitFor(() => botReplies()[0]);
    await fake.waitFor(() => reply.text.split(/\s+/).length >= 300, 10_000);
    expect(reply.stream).toBeUndefined();
    expect(reply.thread_ts).toBe(mention.ts);
    expect(fake.count429()).toBe(0);
  });
});
