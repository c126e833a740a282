import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack, Json, StoredMessage } from '../fakes/slack/index.ts';
import { startSlackWorld, stopSlackWorld, type SlackWorld } from './herald-on-fake-slack.ts';

interface FeedbackElement {
  type: string;
  action_id: string;
  positive_button: { value: string };
  negative_button: { value: string };
}

function feedbackOf(message: StoredMessage): FeedbackElement | undefined {
  const block = (message.blocks as Json[] | undefined)?.find((b) => b.type === 'context_actions');
  return (block?.elements as FeedbackElement[] | undefined)?.find((e) => e.type === 'feedback_buttons');
}

describe("Slack's feedback buttons on Herald's answers", () => {
  let world: SlackWorld;
  let fake: FakeSlack;
  let bob: string;

  beforeAll(async () => {
    world = await startSlackWorld();
    fake = world.fake;
    bob = fake.addUser({ name: 'bob' }).id;
    Object.assign(fake.workspace.users.get(fake.userId)!, { is_admin: true });
  });

  afterAll(() => stopSlackWorld(world));

  const press = async (message: StoredMessage, rating: 'positive' | 'negative', user?: string) => {
    const payload = fake.interactions.press({ channel: message.channel, ts: message.ts, actionId: 'herald_feedback', rating, ...(user && { user }) });
    const delivery = await fake.sendInteractive(payload);
    await world.herald.settled();
    return delivery;
  };

  const metric = async (rating: string) => {
    const text = await world.herald.metrics.registry.metrics();
    return Number(new RegExp(`^herald_feedback_total\\{platform="slack",rating="${rating}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  };

  const usageAs = async (user: string) => {
    const before = fake.responseUrlPosts.length;
    await fake.sendSlashCommand({ command: '/usage', user });
    return String((await fake.waitFor(() => fake.responseUrlPosts[before])).body.text);
  };

  it('sit under streamed and posted answers; presses are acknowledged at once, one changeable vote per person, counted and shown to admins', async () => {
    await fake.deliverEvent(fake.events.appMention({ text: 'hello there' }));
    const streamed = await fake.waitFor(() => fake.botMessages(fake.channelId).find((m) => m.stream?.state === 'stopped' && m.blocks));
    await fake.deliverEvent(fake.events.directMessage({ text: 'and hello here' }));
    const posted = await fake.waitFor(() => fake.botMessages(fake.dmChannelId).find((m) => feedbackOf(m)));
    expect(posted.stream).toBeUndefined();
    expect(posted.text).toBe('Echo: and hello here');

    const streamedButtons = feedbackOf(streamed)!;
    const postedButtons = feedbackOf(posted)!;
    expect(streamedButtons.positive_button.value).toMatch(/^positive:/);
    expect(streamedButtons.negative_button.value).toMatch(/^negative:/);
    // Each answer names itself.
    expect(postedButtons.positive_button.value).not.toBe(streamedButtons.positive_button.value);

    const first = await press(streamed, 'positive');
    expect(first.status).toBe(200);
    expect(first.ackMs).toBeLessThan(3000);
    await press(streamed, 'negative'); // alice changes her mind
    await press(streamed, 'negative'); // and presses again: still one vote
    await press(streamed, 'positive', bob);
    await press(posted, 'positive');

    expect(await metric('positive')).toBe(3);
    expect(await metric('negative')).toBe(1);
    expect(await usageAs(fake.userId)).toContain('Feedback on answers here:* 👍 2 · 👎 1');
    expect(await usageAs(bob)).not.toContain('Feedback');
    expect(fake.workspace.ephemeral).toEqual([]);
  });

  it('a press whose store write fails tells the presser alone', async () => {
    const mention = fake.events.appMention({ text: 'rate me' });
    await fake.deliverEvent(mention);
    const answer = await fake.waitFor(() => fake.thread(fake.channelId, String(mention.ts)).find((m) => feedbackOf(m)));
    const before = await metric('negative');
    const store = world.herald.core.store;
    const acquire = store.acquireLock.bind(store);
    store.acquireLock = () => Promise.reject(new Error('store down'));
    try {
      await press(answer, 'negative', bob);
    } finally {
      store.acquireLock = acquire;
    }
    expect(fake.workspace.ephemeral.filter((e) => e.user === bob)).toEqual([
      expect.objectContaining({ user: bob, channel: fake.channelId, thread_ts: answer.thread_ts, text: expect.stringMatching(/could not be saved/) }),
    ]);
    expect(await metric('negative')).toBe(before);
  });
});
