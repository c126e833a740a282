import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHttpApp } from './bolt-harness.ts';
import type { RunningApp } from './bolt-harness.ts';
import { startFakeSlack } from './index.ts';
import type { FakeSlack } from './index.ts';

describe('events over HTTP to a real Bolt app', () => {
  let fake: FakeSlack;
  let running: RunningApp | undefined;
  const seen: Array<{ text: string; retryNum?: number; retryReason?: string; eventId?: string }> = [];

  beforeEach(async () => {
    fake = await startFakeSlack();
    seen.length = 0;
    running = await startHttpApp(fake, (app) => {
      app.event('app_mention', async ({ event, say, context, body }) => {
        seen.push({
          text: event.text,
          ...(context.retryNum !== undefined ? { retryNum: context.retryNum } : {}),
          ...(context.retryReason !== undefined ? { retryReason: context.retryReason } : {}),
          eventId: body.event_id,
        });
        await say({ text: `you said: ${event.text}`, thread_ts: event.ts });
      });
      app.command('/herald', async ({ command, ack, respond }) => {
        await ack();
        await respond({ response_type: 'in_channel', text: `on it: ${command.text}` });
      });
      app.action('retry', async ({ ack, respond }) => {
        await ack();
        await respond({ replace_original: true, text: 'retrying…' });
      });
    });
  });

  afterEach(async () => {
    await running?.stop();
    await fake.close();
  });

  it('delivers a signed app_mention and the reply lands in its thread', async () => {
    const mention = fake.events.appMention({ text: 'hello there' });
    const delivery = await fake.deliverEvent(mention);
    expect(delivery.status).toBe(200);
    expect(delivery.timedOut).toBe(false);
    const reply = await fake.waitForMessage(fake.channelId, (m) => m.user === fake.botUserId);
    expect(reply.text).toBe(`you said: <@${fake.botUserId}> hello there`);
    expect(reply.thread_ts).toBe(mention.ts);
    const post = fake.calls('chat.postMessage')[0];
    expect(post?.token).toBe(fake.botToken);
    expect(post?.status).toBe(200);
    // The thread is readable back through the Web API, parent first.
    const replies = await running!.app.client.conversations.replies({ channel: fake.channelId, ts: String(mention.ts) });
    expect(replies.messages?.map((m) => m.text)).toEqual([mention.text, reply.text]);
  });

  it('Bolt refuses a forged signature and a stale timestamp with 401', async () => {
    const forged = await fake.deliverEvent(fake.events.appMention({ text: 'forged' }), { forge: true });
    const stale = await fake.deliverEvent(fake.events.appMention({ text: 'replayed' }), { stale: true });
    expect(forged.status).toBe(401);
    expect(stale.status).toBe(401);
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual([]);
    expect(fake.calls('chat.postMessage')).toEqual([]);
  });

  it('a retry carries X-Slack-Retry-Num/Reason and the same event_id', async () => {
    const first = await fake.deliverEvent(fake.events.appMention({ text: 'again' }));
    const retry = await fake.redeliver(first);
    expect(retry.status).toBe(200);
    expect(retry.headers['x-slack-retry-num']).toBe('1');
    expect(retry.headers['x-slack-retry-reason']).toBe('http_timeout');
    await fake.waitFor(() => fake.botMessages().length === 2);
    expect(seen[0]?.retryNum).toBeUndefined();
    expect(seen[1]).toMatchObject({ retryNum: 1, retryReason: 'http_timeout', eventId: first.eventId });
  });

  it('a duplicate delivery reuses the event_id', async () => {
    const first = await fake.deliverEvent(fake.events.appMention({ text: 'one' }));
    const duplicate = await fake.deliverEvent(fake.events.appMention({ text: 'one' }), { sameEventIdAs: first });
    expect(duplicate.eventId).toBe(first.eventId);
    await fake.waitFor(() => fake.botMessages().length === 2);
    expect(new Set(seen.map((s) => s.eventId)).size).toBe(1);
  });

  it('echoes the url_verification challenge', async () => {
    const delivery = await fake.urlVerification();
    expect(delivery.status).toBe(200);
    expect(JSON.parse(delivery.responseBody)).toEqual({ challenge: delivery.payload.challenge });
  });

  it('a slash command is acked and its response_url posts in channel', async () => {
    const delivery = await fake.sendSlashCommand({ command: '/herald', text: 'summarise' });
    expect(delivery.status).toBe(200);
    expect(delivery.ackMs).toBeLessThan(3000);
    const post = await fake.waitFor(() => fake.responseUrlPosts[0]);
    expect(post.status).toBe(200);
    expect(post.body).toMatchObject({ response_type: 'in_channel', text: 'on it: summarise' });
    const message = await fake.waitForMessage(fake.channelId, (m) => m.text === 'on it: summarise');
    expect(message.user).toBe(fake.botUserId);
  });

  it('a button press is acked and answered through its response_url', async () => {
    const posted = await running!.app.client.chat.postMessage({ channel: fake.channelId, text: 'failed', blocks: [{ type: 'divider' }] });
    const payload = fake.blockActionsPayload({ messageTs: String(posted.ts), actionId: 'retry' });
    const delivery = await fake.sendInteractive(payload);
    expect(delivery.status).toBe(200);
    const post = await fake.waitFor(() => fake.responseUrlPosts[0]);
    expect(post.body).toMatchObject({ replace_original: true, text: 'retrying…' });
    expect(post.url).toBe(payload.response_url);
    expect(fake.message(fake.channelId, String(posted.ts))?.versions.map((v) => v.text)).toEqual(['failed', 'retrying…']);
  });
});

describe('an app that acknowledges too slowly', () => {
  it('is recorded as timed out, as Slack would treat it', async () => {
    const fake = await startFakeSlack({ eventTimeoutMs: 200 });
    const running = await startHttpApp(
      fake,
      (app) => {
        app.event('app_mention', async () => {
          await new Promise((r) => setTimeout(r, 600));
        });
      },
      { processBeforeResponse: true },
    );
    try {
      const delivery = await fake.deliverEvent(fake.events.appMention({ text: 'slow' }));
      expect(delivery.timedOut).toBe(true);
      expect(delivery.status).toBeUndefined();
      expect(delivery.ackMs).toBeGreaterThanOrEqual(190);
    } finally {
      await running.stop();
      await fake.close();
    }
  });
});
