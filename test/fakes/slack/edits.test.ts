import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAST_RETRIES } from './bolt-harness.ts';
import { startFakeSlack, type FakeSlack } from './index.ts';

describe('messages edited by people, and links unfurled', () => {
  let fake: FakeSlack;
  let client: webApi.WebClient;

  beforeEach(async () => {
    fake = await startFakeSlack();
    client = new webApi.WebClient(fake.botToken, { slackApiUrl: fake.apiUrl, retryConfig: FAST_RETRIES });
  });

  afterEach(async () => {
    await fake.close();
  });

  it('an edit: message_changed with the message as it is now, edited by its author, and as it was', async () => {
    const mention = fake.events.appMention({ text: 'what is the captial of France?' });
    const ts = String(mention.ts);
    const later = Date.now() + 11 * 60_000;
    const event = fake.events.messageEdited({ channel: fake.channelId, ts, text: `<@${fake.botUserId}> what is the capital of France?`, at: later });

    expect(event).toMatchObject({
      type: 'message',
      subtype: 'message_changed',
      hidden: true,
      channel: fake.channelId,
      channel_type: 'channel',
      message: { type: 'message', user: fake.userId, ts, text: `<@${fake.botUserId}> what is the capital of France?`, edited: { user: fake.userId } },
      previous_message: { ts, text: `<@${fake.botUserId}> what is the captial of France?` },
    });
    expect(event.ts).toBe(event.event_ts);
    expect((event.message as { edited: { ts: string } }).edited.ts).toBe(event.ts);
    expect(Math.round(Number(event.ts) * 1000)).toBe(later);
    expect((event.previous_message as { edited?: unknown }).edited).toBeUndefined();

    const history = await client.conversations.history({ channel: fake.channelId });
    expect(history.messages?.find((m) => m.ts === ts)).toMatchObject({
      text: `<@${fake.botUserId}> what is the capital of France?`,
      edited: { user: fake.userId },
    });
  });

  it('an unfurl: message_changed that adds link attachments and leaves the text and edited as they were', async () => {
    const message = fake.events.directMessage({ text: 'look at <https://example.com/page>' });
    const ts = String(message.ts);
    const event = fake.events.linksUnfurled({ channel: fake.dmChannelId, ts });
    expect(event).toMatchObject({
      subtype: 'message_changed',
      hidden: true,
      channel_type: 'im',
      message: {
        ts,
        text: 'look at <https://example.com/page>',
        attachments: [{ from_url: 'https://example.com/page', original_url: 'https://example.com/page' }],
      },
      previous_message: { ts, text: 'look at <https://example.com/page>' },
    });
    expect((event.message as { edited?: unknown }).edited).toBeUndefined();
    expect((event.previous_message as { attachments?: unknown }).attachments).toBeUndefined();
  });
});
