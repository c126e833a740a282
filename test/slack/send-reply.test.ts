import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReplyEvent, ReplyStream } from '../../src/conversation/types.ts';
import { emptyUsage } from '../../src/conversation/usage-meter.ts';
import { SlackApi } from '../../adapters/slack/slack-api.ts';
import { sendReply } from '../../adapters/slack/send-reply.ts';
import { StreamingSwitch } from '../../adapters/slack/stream-part.ts';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/index.ts';
import { FAST_RETRIES } from '../fakes/slack/bolt-harness.ts';
import { silentLogger as logger } from '../helpers/logger.ts';

/** A reply stream: text pieces (with pauses between them) and then `done`. */
async function* replyOf(pieces: Array<string | ReplyEvent>, gapMs = 0): ReplyStream {
  for (const piece of pieces) {
    if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
    yield typeof piece === 'string' ? { type: 'text', delta: piece } : piece;
  }
  yield { type: 'done', usage: emptyUsage() };
}

describe('sendReply on the fake Slack', () => {
  let fake: FakeSlack;
  let api: SlackApi;
  let streaming: StreamingSwitch;

  beforeEach(async () => {
    fake = await startFakeSlack();
    api = new SlackApi({ botToken: fake.botToken, apiUrl: fake.apiUrl, logger, retryConfig: FAST_RETRIES });
    streaming = new StreamingSwitch();
  });

  afterEach(async () => {
    await fake.close();
  });

  function threadTarget() {
    const mention = fake.events.appMention({ text: 'question' });
    return { channel: fake.channelId, threadTs: String(mention.ts), recipient: { userId: fake.userId, teamId: fake.teamId } };
  }

  it('streams natively in a thread and puts the numbered sources under the answer', async () => {
    const target = threadTarget();
    const citations = [
      { index: 1, url: 'https://news1.example.com/a', title: 'First', siteName: 'News One', publishTime: '2025-01-02T00:00:00Z' },
      { index: 2, url: 'https://news2.example.com/b', title: 'Second' },
    ];
    await sendReply({ api, streaming, logger }, replyOf([{ type: 'citations', citations }, 'Rates rose [1]', ' and fell [2].'], 20), { target });
    const reply = fake.botMessages()[0]!;
    expect(reply.text).toBe('Rates rose [1] and fell [2].');
    expect(reply.thread_ts).toBe(target.threadTs);
    expect(reply.stream?.state).toBe('stopped');
    expect(reply.stream?.recipientUserId).toBe(fake.userId);
    const sources = JSON.stringify(reply.blocks);
    expect(sources).toContain('<https://news1.example.com/a|[1] First> — News One, 2025-01-02');
    expect(sources).toContain('<https://news2.example.com/b|[2] Second>');
    expect(fake.calls('chat.postMessage')).toHaveLength(0);
  });

  it('posts and edits at the top level of a conversation, where Slack cannot stream', async () => {
    const target = { channel: fake.dmChannelId, recipient: { userId: fake.userId, teamId: fake.teamId } };
    await sendReply({ api, streaming, logger }, replyOf(['**Hello**', ' there', ', friend.'], 30), { target });
    expect(fake.calls('chat.startStream')).toHaveLength(0);
    const reply = fake.botMessages(fake.dmChannelId)[0]!;
    expect(reply.text).toBe('**Hello** there, friend.');
    expect(reply.thread_ts).toBeUndefined();
    expect(fake.calls('chat.postMessage')[0]?.args.markdown_text).toBe('**Hello**');
  });

  it('falls back to post and edit when Slack has no streaming, and stops trying', async () => {
    fake.injectError('chat.startStream', 'unknown_method');
    await sendReply({ api, streaming, logger }, replyOf(['one ', 'two']), { target: threadTarget() });
    expect(streaming.enabled).toBe(false);
    await sendReply({ api, streaming, logger }, replyOf(['three']), { target: threadTarget() });
    expect(fake.calls('chat.startStream')).toHaveLength(1);
    expect(fake.botMessages().map((m) => m.text)).toEqual(['one two', 'three']);
  });

  it('continues in a new thread message when the stream ends early, losing no text', async () => {
    const target = threadTarget();
    fake.injectError('chat.appendStream', 'message_not_in_streaming_state');
    await sendReply({ api, streaming, logger }, replyOf(['Start. ', 'Middle. ', 'End.'], 300), { target });
    const texts = fake.botMessages().map((m) => m.text);
    expect(texts.join('')).toBe('Start. Middle. End.');
    expect(texts.length).toBe(2);
    expect(fake.botMessages().every((m) => m.thread_ts === target.threadTs)).toBe(true);
  });

  it('continues after msg_too_long from chat.update, and splits a post Slack finds too long', async () => {
    const target = { channel: fake.dmChannelId };
    fake.injectError('chat.update', 'msg_too_long');
    await sendReply({ api, streaming, logger }, replyOf(['First part. ', 'Second part.'], 1050), { target });
    expect(
      fake
        .botMessages(fake.dmChannelId)
        .map((m) => m.text)
        .join(''),
    ).toBe('First part. Second part.');

    fake.injectError('chat.postMessage', 'msg_too_long');
    await sendReply({ api, streaming, logger }, replyOf(['Alpha beta gamma delta.']), { target });
    const later = fake
      .botMessages(fake.dmChannelId)
      .slice(2)
      .map((m) => m.text);
    expect(later.length).toBe(2);
    expect(later.map((t) => t.trim()).join(' ')).toBe('Alpha beta gamma delta.');
  });

  it('stops writing when the user presses stop', async () => {
    const target = threadTarget();
    let stopped = 0;
    const pieces = replyOf(['Thinking out loud. ', 'more ', 'and more ', 'and more.'], 300);
    const sending = sendReply({ api, streaming, logger }, pieces, { target, onStoppedByUser: () => stopped++ });
    const started = await fake.waitForCall('chat.startStream');
    fake.stopStreamAsUser(fake.channelId, String(started.response.ts));
    await sending;
    expect(stopped).toBe(1);
    expect(fake.calls('chat.postMessage')).toHaveLength(0);
    expect(fake.botMessages()).toHaveLength(1);
  });

  it('splits a long answer into several streamed messages under the limit, with no 429', async () => {
    const target = threadTarget();
    const words = Array.from({ length: 5000 }, (_, i) => `word${i}`);
    const pieces = Array.from({ length: 50 }, (_, i) => `${words.slice(i * 100, (i + 1) * 100).join(' ')} `);
    await sendReply({ api, streaming, logger }, replyOf(pieces, 5), { target });
    const messages = fake.botMessages();
    expect(messages.length).toBeGreaterThan(1);
    for (const m of messages) expect(m.text.length).toBeLessThanOrEqual(11_000);
    // Messages are cut between words; the space at a cut is not repeated.
    const shown = messages.map((m) => m.text.trim()).join(' ');
    expect(shown === words.join(' '), 'every word shown once, in order').toBe(true);
    expect(fake.count429()).toBe(0);
  });

  it('uploads the reasoning as a snippet only when asked', async () => {
    const target = threadTarget();
    const events: Array<string | ReplyEvent> = [{ type: 'reasoning', delta: 'Because.' }, 'Answer.'];
    await sendReply({ api, streaming, logger }, replyOf(events), { target });
    expect(fake.uploads).toHaveLength(0);
    await sendReply({ api, streaming, logger }, replyOf(events), { target, wantsReasoning: true });
    expect(fake.uploads).toHaveLength(1);
    const shared = await fake.waitForMessage(fake.channelId, (m) => m.fileIds.length > 0);
    expect(shared.thread_ts).toBe(target.threadTs);
  });
});

describe('sendReply with hostile content', () => {
  let fake: FakeSlack;
  let api: SlackApi;

  beforeEach(async () => {
    fake = await startFakeSlack();
    api = new SlackApi({ botToken: fake.botToken, apiUrl: fake.apiUrl, logger, retryConfig: FAST_RETRIES });
  });

  afterEach(async () => {
    await fake.close();
  });

  /** Slack notifies for `<!…>` and `<@…>`; markdown also reads `&lt;` as `<`, mrkdwn (the `text` fallback) does not. */
  const LIVE_IN_MARKDOWN = /(?:<|&lt;)[!@]/;
  const LIVE_IN_MRKDWN = /<[!@]/;
  const hostile = 'Hey <!channel> and <!here>, <!everyone>, <!subteam^S1|team>, <@U999> &lt;!channel&gt;';

  function expectNoLiveMention(): void {
    for (const { args } of fake.calls()) {
      const blocks = (typeof args.blocks === 'string' ? JSON.parse(args.blocks) : (args.blocks ?? [])) as Array<{ type: string; text?: unknown }>;
      const markdown = [args.markdown_text, ...blocks.filter((b) => b.type === 'markdown').map((b) => b.text)];
      for (const text of markdown) if (typeof text === 'string') expect(text).not.toMatch(LIVE_IN_MARKDOWN);
      const mrkdwn = [args.text, ...blocks.filter((b) => b.type !== 'markdown').map((b) => JSON.stringify(b))];
      for (const text of mrkdwn) if (typeof text === 'string') expect(text).not.toMatch(LIVE_IN_MRKDWN);
    }
  }

  it('streams a reply that names mentions without pinging anyone, even split between chunks', async () => {
    const mention = fake.events.appMention({ text: 'question' });
    const target = { channel: fake.channelId, threadTs: String(mention.ts), recipient: { userId: fake.userId, teamId: fake.teamId } };
    await sendReply({ api, streaming: new StreamingSwitch(), logger }, replyOf(['Hey <', '!here> ', hostile], 5), { target });
    const reply = fake.botMessages()[0]!;
    expect(reply.stream?.state).toBe('stopped');
    expect(reply.text.replaceAll('\u200D', '')).toBe(`Hey <!here> ${hostile}`);
    expectNoLiveMention();
  });

  it('posts and edits a reply with sources without pinging anyone, in the text and in the markdown block', async () => {
    const target = { channel: fake.dmChannelId, recipient: { userId: fake.userId, teamId: fake.teamId } };
    const citations = [{ index: 1, url: 'https://a.example/x', title: '<!channel>' }];
    await sendReply({ api, streaming: new StreamingSwitch(), logger }, replyOf([{ type: 'citations', citations }, hostile, ' more'], 5), { target });
    const reply = fake.botMessages(fake.dmChannelId)[0]!;
    expect(JSON.stringify(reply.blocks)).toContain('"type":"markdown"');
    expectNoLiveMention();
  });

  it('finishes a reply whose source has a relative URL and a blank title', async () => {
    const mention = fake.events.appMention({ text: 'question' });
    const target = { channel: fake.channelId, threadTs: String(mention.ts), recipient: { userId: fake.userId, teamId: fake.teamId } };
    const citations = [
      { index: 1, url: '/wiki/Thing', title: ' ' },
      { index: 2, url: 'https://b.example/', title: 'B' },
    ];
    await sendReply({ api, streaming: new StreamingSwitch(), logger }, replyOf([{ type: 'citations', citations }, 'Answer [1][2].']), { target });
    const reply = fake.botMessages()[0]!;
    expect(reply.stream?.state).toBe('stopped');
    expect(JSON.stringify(reply.blocks)).toContain('[1] source');
    expect(JSON.stringify(reply.blocks)).toContain('<https://b.example/|[2] B>');
  });
});
