import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Assistant } from '@slack/bolt';
import { startHttpApp } from './bolt-harness.ts';
import type { RunningApp } from './bolt-harness.ts';
import { startFakeSlack } from './index.ts';
import type { FakeSlack } from './index.ts';

describe("Bolt's Assistant against the fake", () => {
  let fake: FakeSlack;
  let running: RunningApp | undefined;

  beforeEach(async () => {
    fake = await startFakeSlack();
    running = await startHttpApp(fake, (app) => {
      app.assistant(
        new Assistant({
          threadStarted: async ({ say, setSuggestedPrompts }) => {
            await say('Hi, how can I help?');
            await setSuggestedPrompts({ prompts: [{ title: 'Summarise', message: 'Summarise this channel' }] });
          },
          threadContextChanged: async ({ saveThreadContext }) => {
            await saveThreadContext();
          },
          userMessage: async ({ message, say, setStatus, getThreadContext }) => {
            await setStatus('is thinking…');
            const context = await getThreadContext();
            const text = 'text' in message ? message.text : '';
            await say(`(${context.channel_id}) ${text}`);
          },
        }),
      );
    });
  });

  afterEach(async () => {
    await running?.stop();
    await fake.close();
  });

  it('greets a new assistant thread, then answers with the thread context', async () => {
    const started = fake.events.assistantThreadStarted();
    const thread = started.assistant_thread as { channel_id: string; thread_ts: string };
    expect((await fake.deliverEvent(started)).status).toBe(200);
    const greeting = await fake.waitForMessage(thread.channel_id, (m) => m.text === 'Hi, how can I help?');
    expect(greeting.thread_ts).toBe(thread.thread_ts);
    expect(greeting.metadata).toMatchObject({ event_type: 'assistant_thread_context', event_payload: { channel_id: fake.channelId } });
    await fake.waitFor(() => fake.assistantThread(thread.channel_id, thread.thread_ts).suggestedPrompts);

    const question = fake.events.threadReply({ text: 'what happened today?', channel: thread.channel_id, thread_ts: thread.thread_ts });
    await fake.deliverEvent(question);
    const answer = await fake.waitForMessage(thread.channel_id, (m) => m.text.startsWith('('));
    expect(answer.text).toBe(`(${fake.channelId}) what happened today?`);
    const status = fake.assistantThread(thread.channel_id, thread.thread_ts).statusHistory;
    expect(status.map((s) => s.status)).toEqual(['is thinking…', '']);
    expect(status[1]?.clearedByReply).toBe(true);
  });

  it('stores a changed context on the greeting message', async () => {
    const other = fake.addChannel({ name: 'random' });
    const started = fake.events.assistantThreadStarted();
    const thread = started.assistant_thread as { channel_id: string; thread_ts: string };
    await fake.deliverEvent(started);
    const greeting = await fake.waitForMessage(thread.channel_id, (m) => m.text === 'Hi, how can I help?');
    await fake.deliverEvent(fake.events.assistantThreadContextChanged({ thread_ts: thread.thread_ts, context: { channel_id: other.id } }));
    await fake.waitFor(() => (greeting.metadata!.event_payload as { channel_id?: string }).channel_id === other.id);
    expect(fake.calls('chat.update')).toHaveLength(1);
  });
});
