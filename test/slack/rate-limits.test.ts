import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../fakes/slack/index.ts';
import { startSlackWorld, stopSlackWorld, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

describe("Slack's rate limits under load", () => {
  let fake: FakeSlack;
  let emu: Emulator;
  let herald: HeraldOnSlack;

  beforeEach(async () => {
    ({ fake, emu, herald } = await startSlackWorld({ emulator: { pace: { tokensPerSecond: 150, ttsChunkIntervalMs: 0 } } }));
  });

  afterEach(() => stopSlackWorld({ fake, emu, herald }));

  it('answers a burst of mentions in one channel completely, streaming while the budget allows and posting after, with no 429', async () => {
    const people = Array.from({ length: 8 }, (_, i) => fake.addUser({ name: `person${i}` }));
    const mentions = people.map((p) => fake.events.appMention({ text: 'long 120', user: p.id }));
    await Promise.all(mentions.map((m) => fake.deliverEvent(m)));
    const finished = (ts: unknown) => {
      const replies = fake.thread(fake.channelId, String(ts)).filter((m) => m.user === fake.botUserId);
      const words = replies
        .map((m) => m.text)
        .join(' ')
        .split(/\s+/)
        .filter(Boolean).length;
      return replies.length > 0 && replies.every((m) => m.stream === undefined || m.stream.state === 'stopped') && words >= 120;
    };
    await fake.waitFor(() => mentions.every((m) => finished(m.ts)), 25_000);
    const streamed = mentions.filter((m) => fake.thread(fake.channelId, String(m.ts)).some((r) => r.stream !== undefined));
    expect(streamed.length).toBeGreaterThan(0);
    expect(streamed.length).toBeLessThan(mentions.length);
    expect(fake.count429()).toBe(0);
  }, 30_000);
});
