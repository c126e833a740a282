import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webApi } from '@slack/bolt';
import { startFakeSlack } from './index.ts';
import type { FakeSlack } from './index.ts';

const MINUTE = 60_000;

function clientFor(fake: FakeSlack): webApi.WebClient {
  return new webApi.WebClient(fake.botToken, { slackApiUrl: fake.apiUrl, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } });
}

function seed(fake: FakeSlack, channel: string, count: number): string[] {
  const start = Date.now() - (count + 1) * MINUTE;
  const entries = Array.from({ length: count }, (_, i) => ({ user: fake.userId, text: `message ${i}`, at: start + i * MINUTE }));
  return fake.workspace.seedHistory(channel, entries).map((m) => m.ts);
}

describe('fake Slack: reading conversations', () => {
  let fake: FakeSlack;
  let client: webApi.WebClient;
  let secret: string;
  let ts: string[];

  beforeAll(async () => {
    fake = await startFakeSlack();
    client = clientFor(fake);
    ts = seed(fake, fake.channelId, 450);
    secret = fake.addChannel({ name: 'secret', is_private: true }).id;
    fake.addChannel({ name: 'elsewhere', is_private: true, is_member: false });
    fake.workspace.setMembers(secret, [fake.userId]);
  });

  afterAll(() => fake.close());

  it('pages conversations.history newest first with cursors; oldest/latest bound it, inclusive keeps the bounds', async () => {
    const first = await client.conversations.history({ channel: fake.channelId, limit: 200 });
    expect(first.messages).toHaveLength(200);
    expect(first.messages![0]!.text).toBe('message 449');
    expect(first.has_more).toBe(true);
    const second = await client.conversations.history({ channel: fake.channelId, limit: 200, cursor: first.response_metadata!.next_cursor! });
    expect(second.messages![0]!.text).toBe('message 249');
    const third = await client.conversations.history({ channel: fake.channelId, limit: 200, cursor: second.response_metadata!.next_cursor! });
    expect(third.messages).toHaveLength(50);
    expect(third.has_more).toBe(false);
    const bounded = await client.conversations.history({ channel: fake.channelId, oldest: ts[10]!, latest: ts[12]!, inclusive: true });
    expect(bounded.messages!.map((m) => m.text)).toEqual(['message 12', 'message 11', 'message 10']);
    const open = await client.conversations.history({ channel: fake.channelId, oldest: ts[10]!, latest: ts[12]! });
    expect(open.messages!.map((m) => m.text)).toEqual(['message 11']);
  });

  it('lists members with cursors, finds channels by type and gives permalinks', async () => {
    const bob = fake.addUser({ name: 'bob' });
    const page = await client.conversations.members({ channel: fake.channelId, limit: 2 });
    expect(page.members).toEqual([fake.userId, bob.id]);
    const rest = await client.conversations.members({ channel: fake.channelId, limit: 2, cursor: page.response_metadata!.next_cursor! });
    expect(rest.members).toEqual([fake.botUserId]);
    expect(rest.response_metadata!.next_cursor).toBe('');
    expect((await client.conversations.members({ channel: secret })).members).toEqual([fake.userId, fake.botUserId]);
    const listed = await client.conversations.list({ types: 'public_channel,private_channel' });
    expect(listed.channels!.map((c) => c.name)).toEqual(['general', 'secret']);
    expect((await client.conversations.list({})).channels!.map((c) => c.name)).toEqual(['general']);
    const permalink = await client.chat.getPermalink({ channel: fake.channelId, message_ts: ts[3]! });
    expect(permalink.permalink).toBe(
      `https://${fake.workspace.identity.teamDomain}.slack.com/archives/${fake.channelId}/p${ts[3]!.replace('.', '')}`,
    );
    const missing = await client.chat
      .getPermalink({ channel: fake.channelId, message_ts: '1.000001' })
      .catch((e: { data: { error: string } }) => e.data.error);
    expect(missing).toBe('message_not_found');
  });
});

describe('fake Slack: the limited history tier of apps outside the Marketplace', () => {
  it('serves 15 messages a page and one call a minute, answering ratelimited with Retry-After', async () => {
    const fake = await startFakeSlack({ rateLimits: { limitedHistory: true } });
    try {
      seed(fake, fake.channelId, 40);
      const client = clientFor(fake);
      const page = await client.conversations.history({ channel: fake.channelId, limit: 200 });
      expect(page.messages).toHaveLength(15);
      expect(page.has_more).toBe(true);
      const refused = await client.conversations
        .history({ channel: fake.channelId, cursor: page.response_metadata!.next_cursor! })
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: webApi.ErrorCode.RateLimitedError });
      expect((refused as { retryAfter: number }).retryAfter).toBeGreaterThan(50);
      expect(fake.count429('conversations.history')).toBe(1);
    } finally {
      await fake.close();
    }
  });
});

describe('fake Slack: events from conversations the app is not in', () => {
  it('are never delivered, over HTTP or Socket Mode; those from conversations it is in are', async () => {
    const fake = await startFakeSlack();
    try {
      const outside = fake.addChannel({ name: 'outside', is_member: false }).id;
      const mention = fake.events.appMention({ text: 'anyone?', channel: outside });
      await expect(async () => fake.deliverEvent(mention)).rejects.toThrow(/not in #outside/);
      await expect(async () => fake.socket.deliverEvent(fake.events.message({ text: 'hi', channel: outside }))).rejects.toThrow(/not in #outside/);
      fake.setRequestUrl('http://127.0.0.1:9/slack/events');
      const inside = await fake.deliverEvent(fake.events.appMention({ text: 'anyone?' }));
      expect(inside.eventId).toMatch(/^Ev/);
    } finally {
      await fake.close();
    }
  });
});
