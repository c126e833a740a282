import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { webApi } from '@slack/bolt';
import { FAST_RETRIES } from './bolt-harness.ts';
import { startFakeSlack } from './index.ts';
import type { FakeSlack } from './index.ts';

function errorOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'no error',
    (error: { data?: { error?: string } }) => error.data?.error ?? String(error),
  );
}

describe('messages deleted by people', () => {
  let fake: FakeSlack;
  let client: webApi.WebClient;

  beforeEach(async () => {
    fake = await startFakeSlack();
    client = new webApi.WebClient(fake.botToken, { slackApiUrl: fake.apiUrl, retryConfig: FAST_RETRIES });
  });

  afterEach(async () => {
    await fake.close();
  });

  it('a deleted reply: message_deleted with the message as it was, and every write to it answers message_not_found', async () => {
    const mention = fake.events.appMention({ text: 'question' });
    const threadTs = String(mention.ts);
    const stream = await client.chat.startStream({
      channel: fake.channelId,
      thread_ts: threadTs,
      recipient_user_id: fake.userId,
      recipient_team_id: fake.teamId,
      markdown_text: 'Half',
    });
    const posted = await client.chat.postMessage({ channel: fake.channelId, thread_ts: threadTs, text: 'Posted' });

    const event = fake.events.messageDeleted({ channel: fake.channelId, ts: String(stream.ts) });
    expect(event).toMatchObject({
      type: 'message',
      subtype: 'message_deleted',
      hidden: true,
      channel: fake.channelId,
      deleted_ts: stream.ts,
      channel_type: 'channel',
      previous_message: { ts: stream.ts, thread_ts: threadTs, text: 'Half' },
    });
    expect(event.ts).toBe(event.event_ts);
    expect(fake.message(fake.channelId, String(stream.ts))).toBeUndefined();
    const ts = String(stream.ts);
    expect(await errorOf(client.chat.appendStream({ channel: fake.channelId, ts, markdown_text: ' more' }))).toBe('message_not_found');
    expect(await errorOf(client.chat.stopStream({ channel: fake.channelId, ts }))).toBe('message_not_found');
    expect(await errorOf(client.chat.update({ channel: fake.channelId, ts, text: 'edit' }))).toBe('message_not_found');
    expect(await errorOf(client.chat.delete({ channel: fake.channelId, ts }))).toBe('message_not_found');

    fake.events.messageDeleted({ channel: fake.channelId, ts: String(posted.ts) });
    expect(await errorOf(client.chat.update({ channel: fake.channelId, ts: String(posted.ts), text: 'edit' }))).toBe('message_not_found');
  });

  it('a thread parent with replies becomes a tombstone (message_changed); it goes when its last reply is deleted', async () => {
    const mention = fake.events.appMention({ text: 'question' });
    const threadTs = String(mention.ts);
    const reply = await client.chat.postMessage({ channel: fake.channelId, thread_ts: threadTs, text: 'Answer' });

    const event = fake.events.messageDeleted({ channel: fake.channelId, ts: threadTs });
    expect(event).toMatchObject({
      type: 'message',
      subtype: 'message_changed',
      hidden: true,
      channel: fake.channelId,
      message: { subtype: 'tombstone', text: 'This message was deleted.', user: 'USLACKBOT', hidden: true, ts: threadTs, thread_ts: threadTs },
      previous_message: { ts: threadTs, user: fake.userId },
    });
    expect(fake.message(fake.channelId, threadTs)?.subtype).toBe('tombstone');

    await client.chat.delete({ channel: fake.channelId, ts: String(reply.ts) });
    expect(fake.message(fake.channelId, threadTs)).toBeUndefined();
  });
});
