import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App, LogLevel } from '@slack/bolt';
import type { AppOptions } from '@slack/bolt';
import { FAST_RETRIES } from './bolt-harness.ts';
import { startFakeSlack } from './index.ts';
import type { FakeSlack, FakeSlackOptions } from './index.ts';

function clientFor(fake: FakeSlack, clientOptions: AppOptions['clientOptions'] = {}): App['client'] {
  return new App({
    token: fake.botToken,
    signingSecret: fake.signingSecret,
    logLevel: LogLevel.ERROR,
    tokenVerificationEnabled: false,
    clientOptions: { slackApiUrl: fake.apiUrl, retryConfig: FAST_RETRIES, ...clientOptions },
  }).client;
}

async function errorOf(promise: Promise<unknown>): Promise<{ error?: string; messages?: string[] }> {
  try {
    await promise;
    return {};
  } catch (error) {
    const data = (error as { data?: { error?: string; response_metadata?: { messages?: string[] } } }).data;
    return {
      ...(data?.error ? { error: data.error } : {}),
      ...(data?.response_metadata?.messages ? { messages: data.response_metadata.messages } : {}),
    };
  }
}

async function rawCall(
  fake: FakeSlack,
  method: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${fake.apiUrl}${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('Web API', () => {
  let fake: FakeSlack;
  let client: App['client'];

  beforeEach(async () => {
    // Per-channel posting limits have their own tests below; here many posts go to one channel back to back.
    fake = await startFakeSlack({ rateLimits: { postMessagePerChannel: false } });
    client = clientFor(fake);
  });

  afterEach(async () => {
    await fake.close();
  });

  it('authenticates like Slack', async () => {
    const channel = `channel=${fake.channelId}&text=hi`;
    expect((await rawCall(fake, 'chat.postMessage', channel)).json).toEqual({ ok: false, error: 'not_authed' });
    expect((await rawCall(fake, 'chat.postMessage', channel, { authorization: 'Bearer xoxb-1-2-wrong' })).json).toEqual({
      ok: false,
      error: 'invalid_auth',
    });
    expect((await rawCall(fake, 'chat.postMessage', channel, { authorization: `Bearer ${fake.appToken}` })).json).toMatchObject({
      error: 'not_allowed_token_type',
    });
    expect((await rawCall(fake, 'apps.connections.open', '', { authorization: `Bearer ${fake.botToken}` })).json).toMatchObject({
      error: 'not_allowed_token_type',
    });
    expect((await rawCall(fake, 'chat.postMessage', `${channel}&token=${fake.botToken}`)).json).toMatchObject({ ok: true });
    expect(await rawCall(fake, 'chat.nonexistent', '', { authorization: `Bearer ${fake.botToken}` })).toMatchObject({
      status: 404,
      json: { error: 'unknown_method' },
    });
    const auth = await client.auth.test();
    expect(auth).toMatchObject({ ok: true, user_id: fake.botUserId, bot_id: fake.botId, team_id: fake.teamId });
  });

  it('accepts JSON bodies and warns when the charset is missing', async () => {
    const response = await fetch(`${fake.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${fake.botToken}` },
      body: JSON.stringify({ channel: fake.channelId, text: 'json', blocks: [{ type: 'divider' }] }),
    });
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ ok: true, warning: 'missing_charset', message: { text: 'json', blocks: [{ type: 'divider' }] } });
  });

  it('enforces message and block limits with Slack error names', async () => {
    const channel = fake.channelId;
    expect(await errorOf(client.chat.postMessage({ channel, text: 'x'.repeat(40_001) }))).toEqual({ error: 'msg_too_long' });
    expect(await errorOf(client.chat.postMessage({ channel, text: 'x'.repeat(40_000) }))).toEqual({});
    expect(await errorOf(client.chat.postMessage({ channel, text: '' }))).toEqual({ error: 'no_text' });
    expect(await errorOf(client.chat.postMessage({ channel: 'C0NOSUCHONE', text: 'x' }))).toEqual({ error: 'channel_not_found' });
    const tooMany = Array.from({ length: 51 }, () => ({ type: 'divider' as const }));
    expect(await errorOf(client.chat.postMessage({ channel, text: 'x', blocks: tooMany }))).toEqual({
      error: 'invalid_blocks',
      messages: ['[ERROR] no more than 50 items allowed [json-pointer:/blocks]'],
    });
    const longSection = [{ type: 'section' as const, text: { type: 'mrkdwn' as const, text: 'y'.repeat(3001) } }];
    expect(await errorOf(client.chat.postMessage({ channel, text: 'x', blocks: longSection }))).toEqual({
      error: 'invalid_blocks',
      messages: ['[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]'],
    });
    const wideContext = [{ type: 'context' as const, elements: Array.from({ length: 11 }, () => ({ type: 'mrkdwn' as const, text: 'z' })) }];
    expect((await errorOf(client.chat.postMessage({ channel, text: 'x', blocks: wideContext }))).error).toBe('invalid_blocks');

    const posted = await client.chat.postMessage({ channel, text: 'first' });
    expect(await errorOf(client.chat.update({ channel, ts: String(posted.ts), text: 'z'.repeat(40_001) }))).toEqual({ error: 'msg_too_long' });
    expect(await errorOf(client.chat.update({ channel, ts: String(posted.ts), text: 'x', blocks: tooMany }))).toMatchObject({
      error: 'invalid_blocks',
    });
    await client.chat.update({ channel, ts: String(posted.ts), text: 'second' });
    const message = fake.message(channel, String(posted.ts));
    expect(message?.versions.map((v) => v.text)).toEqual(['first', 'second']);
    expect(message?.edited?.user).toBe(fake.botUserId);

    const user = fake.events.message({ text: 'a human wrote this', channel });
    expect(await errorOf(client.chat.update({ channel, ts: String(user.ts), text: 'no' }))).toEqual({ error: 'cant_update_message' });
    expect(await errorOf(client.chat.delete({ channel, ts: String(user.ts) }))).toEqual({ error: 'cant_delete_message' });
    await client.chat.delete({ channel, ts: String(posted.ts) });
    expect(fake.message(channel, String(posted.ts))).toBeUndefined();
  });

  it('serves threads, history, conversations, users, team and bot info', async () => {
    const root = fake.events.message({ text: 'root', channel: fake.channelId });
    const r1 = await client.chat.postMessage({ channel: fake.channelId, thread_ts: String(root.ts), text: 'reply 1' });
    fake.events.threadReply({ text: 'reply 2', channel: fake.channelId, thread_ts: String(root.ts) });
    await client.chat.postMessage({ channel: fake.channelId, text: 'later top-level' });

    const replies = await client.conversations.replies({ channel: fake.channelId, ts: String(root.ts), limit: 2 });
    expect(replies.messages?.map((m) => m.text)).toEqual(['root', 'reply 1']);
    expect(replies.has_more).toBe(true);
    const rest = await client.conversations.replies({
      channel: fake.channelId,
      ts: String(root.ts),
      cursor: replies.response_metadata?.next_cursor ?? '',
    });
    expect(rest.messages?.map((m) => m.text)).toEqual(['reply 2']);
    expect(replies.messages?.[0]).toMatchObject({ reply_count: 2, thread_ts: root.ts });
    expect(replies.messages?.[1]).toMatchObject({ bot_id: fake.botId, parent_user_id: fake.userId, ts: r1.ts });

    const history = await client.conversations.history({ channel: fake.channelId });
    expect(history.messages?.map((m) => m.text)).toEqual(['later top-level', 'root']);
    expect(await errorOf(client.conversations.replies({ channel: fake.channelId, ts: '1.000001' }))).toEqual({ error: 'thread_not_found' });

    expect((await client.conversations.info({ channel: fake.dmChannelId })).channel).toMatchObject({ is_im: true, user: fake.userId });
    expect((await client.users.info({ user: fake.userId })).user).toMatchObject({ id: fake.userId, name: 'alice' });
    expect(await errorOf(client.users.info({ user: 'U0NOBODY000' }))).toEqual({ error: 'user_not_found' });
    expect((await client.team.info()).team).toMatchObject({ id: fake.teamId });
    expect((await client.bots.info({ bot: fake.botId })).bot).toMatchObject({ user_id: fake.botUserId });
  });

  it('reactions and assistant thread status behave like Slack', async () => {
    const dm = fake.events.directMessage({ text: 'help me' });
    const ts = String(dm.ts);
    await client.reactions.add({ channel: fake.dmChannelId, timestamp: ts, name: 'eyes' });
    expect(await errorOf(client.reactions.add({ channel: fake.dmChannelId, timestamp: ts, name: 'eyes' }))).toEqual({ error: 'already_reacted' });
    expect(fake.message(fake.dmChannelId, ts)?.reactions).toEqual([{ name: 'eyes', users: [fake.botUserId] }]);

    await client.assistant.threads.setStatus({ channel_id: fake.dmChannelId, thread_ts: ts, status: 'is thinking…' });
    await client.assistant.threads.setTitle({ channel_id: fake.dmChannelId, thread_ts: ts, title: 'Help' });
    expect(
      await errorOf(
        client.assistant.threads.setSuggestedPrompts({
          channel_id: fake.dmChannelId,
          thread_ts: ts,
          prompts: Array.from({ length: 5 }, (_, i) => ({ title: `p${i}`, message: `m${i}` })),
        }),
      ),
    ).toMatchObject({ error: 'invalid_arguments' });
    expect(fake.assistantThread(fake.dmChannelId, ts)).toMatchObject({ status: 'is thinking…', title: 'Help' });
    // Replying in the thread clears the status, as Slack does.
    await client.chat.postMessage({ channel: fake.dmChannelId, thread_ts: ts, text: 'done' });
    expect(fake.assistantThread(fake.dmChannelId, ts).status).toBe('');
  });

  it('refuses a call the token lacks the scope for', async () => {
    const limited = await startFakeSlack({ scopes: ['chat:write'] });
    try {
      const result = await errorOf(clientFor(limited).users.info({ user: limited.userId }));
      expect(result.error).toBe('missing_scope');
      expect(limited.calls('users.info')[0]?.response).toMatchObject({ needed: 'users:read', provided: 'chat:write' });
    } finally {
      await limited.close();
    }
  });
});

describe('rate limits', () => {
  async function withFake(options: FakeSlackOptions, run: (fake: FakeSlack) => Promise<void>): Promise<void> {
    const fake = await startFakeSlack(options);
    try {
      await run(fake);
    } finally {
      await fake.close();
    }
  }

  it("a 429's Retry-After is honoured by web-api's retry policy", () =>
    withFake({ rateLimits: { methods: { 'chat.update': { limit: 2, windowMs: 1000 } } } }, async (fake) => {
      const client = clientFor(fake);
      const posted = await client.chat.postMessage({ channel: fake.channelId, text: 'v0' });
      const started = Date.now();
      for (const text of ['v1', 'v2', 'v3']) await client.chat.update({ channel: fake.channelId, ts: String(posted.ts), text });
      const elapsed = Date.now() - started;
      expect(fake.count429('chat.update')).toBe(1);
      expect(fake.rateLimited[0]).toMatchObject({ method: 'chat.update', retryAfterSec: 1 });
      const limited = fake.calls('chat.update').find((c) => c.status === 429);
      expect(limited?.response).toEqual({ ok: false, error: 'ratelimited' });
      expect(elapsed).toBeGreaterThanOrEqual(1000);
      expect(fake.message(fake.channelId, String(posted.ts))?.text).toBe('v3');
    }));

  it('a client that rejects rate-limited calls sees the error with retryAfter', () =>
    withFake({}, async (fake) => {
      const client = clientFor(fake, { rejectRateLimitedCalls: true });
      fake.forceRateLimit('reactions.add', { retryAfterSec: 7 });
      const message = await client.chat.postMessage({ channel: fake.channelId, text: 'x' });
      await expect(client.reactions.add({ channel: fake.channelId, timestamp: String(message.ts), name: 'eyes' })).rejects.toMatchObject({
        code: 'slack_webapi_rate_limited_error',
        retryAfter: 7,
      });
      expect(fake.count429()).toBe(1);
    }));

  it('chat.postMessage allows a short burst per channel, then about one per second', () =>
    withFake({ rateLimits: { postMessagePerChannel: { burst: 3, perSecond: 1 } } }, async (fake) => {
      const client = clientFor(fake, { rejectRateLimitedCalls: true });
      for (let i = 0; i < 3; i++) await client.chat.postMessage({ channel: fake.channelId, text: `burst ${i}` });
      await expect(client.chat.postMessage({ channel: fake.channelId, text: 'one too many' })).rejects.toMatchObject({ retryAfter: 1 });
      // Another channel has its own allowance.
      await client.chat.postMessage({ channel: fake.dmChannelId, text: 'elsewhere' });
      expect(fake.count429('chat.postMessage')).toBe(1);
    }));

  it('a well-behaved run serves no 429s at the default limits', () =>
    withFake({}, async (fake) => {
      const client = clientFor(fake);
      const posted = await client.chat.postMessage({ channel: fake.channelId, text: 'a' });
      for (let i = 0; i < 10; i++) await client.chat.update({ channel: fake.channelId, ts: String(posted.ts), text: `a${i}` });
      expect(fake.count429()).toBe(0);
    }));
});
