import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../fakes/slack/index.ts';
import { startSlackWorld, stopSlackWorld, type SlackWorld } from './herald-on-fake-slack.ts';

describe("Slack's assistant panel: loading messages and prompts that fit the channel", () => {
  let world: SlackWorld;
  let fake: FakeSlack;

  beforeAll(async () => {
    world = await startSlackWorld({ mode: 'socket' });
    fake = world.fake;
  });

  afterAll(() => stopSlackWorld(world));

  async function open(context: { channel_id: string | null }) {
    const started = fake.events.assistantThreadStarted({ context });
    await fake.socket.deliverEvent(started);
    const thread = started.assistant_thread as { channel_id: string; thread_ts: string };
    const prompts = await fake.waitFor(() => fake.assistantThread(thread.channel_id, thread.thread_ts).suggestedPrompts);
    return { thread, prompts: prompts.prompts as Array<{ title: string; message: string }> };
  }

  it('opened from a channel, suggests prompts about that channel by name; from nowhere, generic ones', async () => {
    const launch = fake.addChannel({ name: 'launch' });
    const inLaunch = await open({ channel_id: launch.id });
    expect(inLaunch.prompts.length).toBeLessThanOrEqual(4);
    expect(inLaunch.prompts[0]).toEqual({ title: 'Summarize #launch', message: `Summarize the latest discussion in <#${launch.id}>.` });
    expect(inLaunch.prompts.slice(0, 2).every((p) => p.title.includes('#launch') && p.message.includes(`<#${launch.id}>`))).toBe(true);

    const nowhere = await open({ channel_id: null });
    expect(nowhere.prompts.length).toBeGreaterThan(0);
    expect(nowhere.prompts.some((p) => p.title.includes('#'))).toBe(false);

    // Moving to another channel with the panel open: the prompts follow.
    const design = fake.addChannel({ name: 'design' });
    const calls = fake.calls('assistant.threads.setSuggestedPrompts').length;
    await fake.socket.deliverEvent(
      fake.events.assistantThreadContextChanged({ thread_ts: nowhere.thread.thread_ts, context: { channel_id: design.id } }),
    );
    await fake.waitFor(() => fake.calls('assistant.threads.setSuggestedPrompts').length > calls);
    const moved = fake.assistantThread(nowhere.thread.channel_id, nowhere.thread.thread_ts).suggestedPrompts!.prompts as Array<{ title: string }>;
    expect(moved[0]?.title).toBe('Summarize #design');
  });

  it('rotates loading messages under "is thinking…" until the answer starts', async () => {
    const { thread } = await open({ channel_id: null });
    await fake.socket.deliverEvent(
      fake.events.threadReply({ text: 'what time is it? call current_time', channel: thread.channel_id, thread_ts: thread.thread_ts }),
    );
    await fake.waitFor(
      () => fake.botMessages(thread.channel_id).find((m) => m.thread_ts === thread.thread_ts && m.stream?.state === 'stopped'),
      10_000,
    );
    const history = fake.assistantThread(thread.channel_id, thread.thread_ts).statusHistory;
    const thinking = history.find((s) => s.status === 'is thinking…');
    expect(thinking?.loading_messages?.length).toBeGreaterThan(1);
    expect(thinking?.loading_messages?.length).toBeLessThanOrEqual(10);
    // A tool's own status says what Herald is doing instead.
    expect(history.find((s) => s.status === 'is using current_time…')?.loading_messages).toBeUndefined();
  });
});
