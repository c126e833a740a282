import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { ONE_SECOND_BUCKETS, startHarness, type Harness } from './harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ fake: { rateLimits: ONE_SECOND_BUCKETS } });
});

afterEach(() => {
  vi.useRealTimers();
});

afterAll(async () => {
  await h.close();
});

it('tells the asker, instead of answering, when Herald gets to a question long after it was asked', async () => {
  const { fake } = h;
  const channel = fake.addChannel({ name: 'late' });
  const before = h.finished;
  fake.sendMessage({ channelId: channel.id, content: `${h.mention} what time is it?` });
  // Only the clock moves: Herald takes the message up 45 s after Discord stamped it.
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 45_000 });
  await h.repliesFinished(before + 1);

  const replies = h.botMessages(channel.id).map((m) => m.content);
  expect(replies).toHaveLength(1);
  expect(replies[0]).toContain('I only got to this 45 seconds after you asked');
  expect(h.emu.requests.filter((r) => r.endpoint === 'chat')).toEqual([]);
});

it('answers a question taken up within half a minute as usual', async () => {
  const { fake } = h;
  const channel = fake.addChannel({ name: 'on-time' });
  const before = h.finished;
  fake.sendMessage({ channelId: channel.id, content: `${h.mention} hello` });
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 20_000 });
  await h.repliesFinished(before + 1);
  expect(h.botMessages(channel.id).map((m) => m.content)).toEqual(['Echo: [Alice]: hello']);
});
