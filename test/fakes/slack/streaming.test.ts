import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App, LogLevel } from '@slack/bolt';
import { FAST_RETRIES, startHttpApp } from './bolt-harness.ts';
import { startFakeSlack } from './index.ts';
import type { FakeSlack } from './index.ts';

function errorOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'no error',
    (error: { data?: { error?: string } }) => error.data?.error ?? String(error),
  );
}

describe('chat streaming (chat.startStream / appendStream / stopStream)', () => {
  let fake: FakeSlack;
  let app: App;

  beforeEach(async () => {
    fake = await startFakeSlack();
    app = new App({
      token: fake.botToken,
      signingSecret: fake.signingSecret,
      logLevel: LogLevel.ERROR,
      tokenVerificationEnabled: false,
      clientOptions: { slackApiUrl: fake.apiUrl, retryConfig: FAST_RETRIES },
    });
  });

  afterEach(async () => {
    await fake.close();
  });

  const recipients = () => ({ recipient_team_id: fake.teamId, recipient_user_id: fake.userId });

  it('client.chatStream buffers, starts, appends and stops one message', async () => {
    const mention = fake.events.appMention({ text: 'stream me something' });
    const streamer = app.client.chatStream({ channel: fake.channelId, thread_ts: String(mention.ts), ...recipients(), buffer_size: 8 });
    await streamer.append({ markdown_text: 'Hello' });
    expect(fake.calls('chat.startStream')).toHaveLength(0);
    await streamer.append({ markdown_text: ', world' });
    await streamer.append({ markdown_text: ' and more text' });
    const stopped = await streamer.stop({
      blocks: [{ type: 'context', elements: [{ type: 'mrkdwn', text: 'generated' }] }],
    });
    expect(stopped.ok).toBe(true);
    const chatCalls = fake.calls().filter((c) => c.method.startsWith('chat.'));
    expect(chatCalls.map((c) => c.method)).toEqual(['chat.startStream', 'chat.appendStream', 'chat.stopStream']);
    const message = fake.message(fake.channelId, String(streamer.ts));
    expect(message?.text).toBe('Hello, world and more text');
    expect(message?.thread_ts).toBe(mention.ts);
    expect(message?.stream?.state).toBe('stopped');
    expect(message?.stream?.mode).toBe('chunks');
    expect(message?.blocks).toEqual([{ type: 'context', elements: [{ type: 'mrkdwn', text: 'generated' }] }]);
    await expect(streamer.append({ markdown_text: 'late' })).rejects.toThrow(/completed/);
  });

  it("Bolt's sayStream streams a reply into the mention's thread", async () => {
    const running = await startHttpApp(fake, (a) => {
      a.event('app_mention', async ({ sayStream }) => {
        const stream = sayStream!({ buffer_size: 1 });
        await stream.append({ markdown_text: 'thinking… ' });
        await stream.append({ markdown_text: 'done.' });
        await stream.stop();
      });
    });
    try {
      const mention = fake.events.appMention({ text: 'answer me' });
      await fake.deliverEvent(mention);
      const reply = await fake.waitForMessage(fake.channelId, (m) => m.stream?.state === 'stopped');
      expect(reply.text).toBe('thinking… done.');
      expect(reply.thread_ts).toBe(mention.ts);
      expect(reply.stream?.recipientUserId).toBe(fake.userId);
      expect(reply.stream?.recipientTeamId).toBe(fake.teamId);
    } finally {
      await running.stop();
    }
  });

  it('refuses what Slack refuses', async () => {
    const mention = fake.events.appMention({ text: 'x' });
    const thread_ts = String(mention.ts);
    const channel = fake.channelId;
    expect(await errorOf(app.client.chat.startStream({ channel, thread_ts, recipient_team_id: fake.teamId }))).toBe('missing_recipient_user_id');
    expect(await errorOf(app.client.chat.startStream({ channel, thread_ts, recipient_user_id: fake.userId }))).toBe('missing_recipient_team_id');
    expect(await errorOf(app.client.chat.startStream({ channel, thread_ts, ...recipients(), markdown_text: 'x'.repeat(12_001) }))).toBe(
      'msg_too_long',
    );

    const started = await app.client.chat.startStream({ channel, thread_ts, ...recipients(), markdown_text: 'Part one. ' });
    const ts = String(started.ts);
    expect(await errorOf(app.client.chat.update({ channel, ts, text: 'edited' }))).toBe('streaming_state_conflict');
    expect(await errorOf(app.client.chat.appendStream({ channel, ts, chunks: [{ type: 'markdown_text', text: 'x' }] }))).toBe(
      'streaming_mode_mismatch',
    );
    expect(await errorOf(app.client.chat.appendStream({ channel, ts, markdown_text: 'y'.repeat(12_001) }))).toBe('msg_too_long');
    await app.client.chat.appendStream({ channel, ts, markdown_text: 'Part two.' });
    const stop = await app.client.chat.stopStream({ channel, ts });
    expect((stop.message as { text?: string }).text).toBe('Part one. Part two.');
    expect(await errorOf(app.client.chat.appendStream({ channel, ts, markdown_text: 'late' }))).toBe('message_not_in_streaming_state');
    // Once stopped it is an ordinary message again.
    await app.client.chat.update({ channel, ts, text: 'final edit' });
    expect(fake.message(channel, ts)?.text).toBe('final edit');
  });

  it('a stream the user stopped, or one past its lifetime, takes no more', async () => {
    const short = await startFakeSlack({ streamLifetimeMs: 100 });
    try {
      const client = new App({
        token: short.botToken,
        signingSecret: short.signingSecret,
        logLevel: LogLevel.ERROR,
        tokenVerificationEnabled: false,
        clientOptions: { slackApiUrl: short.apiUrl, retryConfig: FAST_RETRIES },
      }).client;
      const thread_ts = String(short.events.appMention({ text: 'x' }).ts);
      const args = { channel: short.channelId, thread_ts, recipient_team_id: short.teamId, recipient_user_id: short.userId };
      const first = await client.chat.startStream({ ...args, markdown_text: 'a' });
      short.stopStreamAsUser(short.channelId, String(first.ts));
      expect(await errorOf(client.chat.appendStream({ channel: short.channelId, ts: String(first.ts), markdown_text: 'b' }))).toBe('stopped_by_user');
      const second = await client.chat.startStream({ ...args, markdown_text: 'a' });
      await new Promise((r) => setTimeout(r, 150));
      expect(await errorOf(client.chat.appendStream({ channel: short.channelId, ts: String(second.ts), markdown_text: 'b' }))).toBe(
        'message_not_in_streaming_state',
      );
    } finally {
      await short.close();
    }
  });

  it('task and plan chunks are kept per task id', async () => {
    const thread_ts = String(fake.events.appMention({ text: 'x' }).ts);
    const channel = fake.channelId;
    const started = await app.client.chat.startStream({
      channel,
      thread_ts,
      ...recipients(),
      task_display_mode: 'plan',
      chunks: [
        { type: 'plan_update', title: 'Researching' },
        { type: 'task_update', id: 't1', title: 'Search the web', status: 'in_progress', details: 'query 1; ' },
      ],
    });
    const ts = String(started.ts);
    await app.client.chat.appendStream({
      channel,
      ts,
      chunks: [
        { type: 'task_update', id: 't1', title: 'Searched the web', status: 'complete', details: 'query 2' },
        { type: 'markdown_text', text: 'Here is what I found.' },
      ],
    });
    const stream = fake.message(channel, ts)?.stream;
    expect(stream?.planTitle).toBe('Researching');
    expect(stream?.tasks).toEqual([{ id: 't1', title: 'Searched the web', status: 'complete', details: 'query 1; query 2' }]);
    expect(fake.message(channel, ts)?.text).toBe('Here is what I found.');
    expect(
      await errorOf(
        app.client.chat.appendStream({ channel, ts, chunks: [{ type: 'task_update', id: 't2', title: 'x', status: 'done' as 'complete' }] }),
      ),
    ).toBe('invalid_arguments');
  });
});
