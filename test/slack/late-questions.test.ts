import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { startSlackWorld, stopSlackWorld, type SlackWorld } from './herald-on-fake-slack.ts';

let world: SlackWorld;

beforeEach(async () => {
  world = await startSlackWorld();
});

afterEach(async () => {
  vi.useRealTimers();
  await stopSlackWorld(world);
});

it('tells the asker in the thread, instead of answering, when Herald gets to a question minutes after it was asked', {
  timeout: 20_000,
}, async () => {
  const { fake, emu } = world;
  const started = fake.events.assistantThreadStarted();
  const thread = started.assistant_thread as { channel_id: string; thread_ts: string };
  await fake.deliverEvent(started);
  await fake.waitFor(() => fake.assistantThread(thread.channel_id, thread.thread_ts).suggestedPrompts);

  const question = fake.events.threadReply({ text: 'is the build green?', channel: thread.channel_id, thread_ts: thread.thread_ts });
  // Only the clock moves: the event reaches Herald three minutes after it was posted, as a late retry would.
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 3 * 60_000 });
  await fake.deliverEvent(question);

  const said = await fake.waitFor(() => fake.botMessages(thread.channel_id).find((m) => m.text.includes('after you asked')), 10_000);
  expect(said.text).toContain('I only got to this 3 minutes after you asked');
  expect(said.thread_ts).toBe(thread.thread_ts);
  const state = await fake.waitFor(() => {
    const now = fake.assistantThread(thread.channel_id, thread.thread_ts);
    return now.status === '' && now;
  });
  expect(state.statusHistory.at(-1)?.status).toBe('');
  expect(emu.requests).toHaveLength(0);
});
