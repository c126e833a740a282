import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../fakes/slack/index.ts';
import { startSlackWorld, stopSlackWorld, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

describe("Herald in Slack's assistant container", () => {
  let fake: FakeSlack;
  let emu: Emulator;
  let herald: HeraldOnSlack;

  beforeEach(async () => {
    ({ fake, emu, herald } = await startSlackWorld({ emulator: { pace: { tokensPerSecond: 200, ttsChunkIntervalMs: 0 } } }));
  });

  afterEach(() => stopSlackWorld({ fake, emu, herald }));

  async function openThread() {
    const started = fake.events.assistantThreadStarted();
    const thread = started.assistant_thread as { channel_id: string; thread_ts: string };
    await fake.deliverEvent(started);
    return thread;
  }

  it('greets a new thread and offers suggested prompts', async () => {
    const thread = await openThread();
    const greeting = await fake.waitFor(() => fake.botMessages(thread.channel_id)[0]);
    expect(greeting.text).toMatch(/^Hi! I'm Herald/);
    expect(greeting.thread_ts).toBe(thread.thread_ts);
    const prompts = await fake.waitFor(() => fake.assistantThread(thread.channel_id, thread.thread_ts).suggestedPrompts);
    expect(prompts.prompts.length).toBeGreaterThan(0);
  });

  it('shows "is thinking…" while it works, titles the thread, and streams the answer into it', async () => {
    const thread = await openThread();
    await fake.waitFor(() => fake.assistantThread(thread.channel_id, thread.thread_ts).suggestedPrompts);
    const question = fake.events.threadReply({ text: 'what time is it? call current_time', channel: thread.channel_id, thread_ts: thread.thread_ts });
    await fake.deliverEvent(question);
    const answer = await fake.waitFor(() => fake.botMessages(thread.channel_id).find((m) => m.stream?.state === 'stopped'), 10_000);
    expect(answer.thread_ts).toBe(thread.thread_ts);
    expect(answer.stream?.recipientUserId).toBe(fake.userId);
    expect(answer.text).toMatch(/^Tool results:\n- current_time: /);
    const state = fake.assistantThread(thread.channel_id, thread.thread_ts);
    expect(state.statusHistory.map((s) => s.status)).toEqual(['is thinking…', 'is using current_time…', 'is thinking…', '']);
    // Slack clears the status when the answer appears.
    expect(state.status).toBe('');
    expect(state.title).toBe('what time is it? call current_time');
  });

  it('keeps one conversation per assistant thread', async () => {
    const thread = await openThread();
    await fake.deliverEvent(fake.events.threadReply({ text: 'remember: blue', channel: thread.channel_id, thread_ts: thread.thread_ts }));
    await fake.waitFor(() => fake.botMessages(thread.channel_id).find((m) => m.stream?.state === 'stopped'));
    await fake.deliverEvent(fake.events.threadReply({ text: 'recall', channel: thread.channel_id, thread_ts: thread.thread_ts }));
    const second = await fake.waitFor(() => fake.botMessages(thread.channel_id).filter((m) => m.stream?.state === 'stopped')[1]);
    expect(second.text).toBe('You first said: remember: blue');
    // The title comes from the first question only.
    expect(fake.calls('assistant.threads.setTitle')).toHaveLength(1);
  });
});
