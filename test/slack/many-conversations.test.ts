import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../fakes/slack/index.ts';
import { textReply } from '../fakes/service/text-answer.ts';
import { startSlackWorld, stopSlackWorld, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

const CONVERSATIONS = 40;
const PROMPT = 'long 80';
const ANSWER = textReply([{ role: 'user', text: PROMPT, images: [], audios: [], toolCalls: [] }]);

describe('many Slack conversations at once, under Slack’s real tiers', () => {
  let fake: FakeSlack;
  let emu: Emulator;
  let herald: HeraldOnSlack;

  beforeAll(async () => {
    ({ fake, emu, herald } = await startSlackWorld({ emulator: { pace: { tokensPerSecond: 100, ttsChunkIntervalMs: 0 } } }));
  });

  afterAll(() => stopSlackWorld({ fake, emu, herald }));

  it('answers 40 new users in DMs and channels each with one message holding exactly the whole answer, promptly and without a 429', async () => {
    const places = Array.from({ length: CONVERSATIONS }, (_, i) => {
      const user = fake.addUser({ name: `crowd-${i}` }).id;
      const direct = i % 2 === 0;
      const channel = fake.addChannel(direct ? { user } : { name: `crowd-${i}` }).id;
      return {
        channel,
        event: direct ? fake.events.message({ text: PROMPT, user, channel }) : fake.events.appMention({ text: PROMPT, user, channel }),
      };
    });
    const started = performance.now();
    await Promise.all(places.map((p) => fake.deliverEvent(p.event)));
    const finished = () => places.every((p) => fake.botMessages(p.channel).some((m) => m.text === ANSWER && m.stream?.state !== 'streaming'));
    await fake.waitFor(finished, 15_000);
    expect(performance.now() - started).toBeLessThan(15_000);

    for (const { channel } of places) {
      expect(fake.botMessages(channel).map((m) => m.text)).toEqual([ANSWER]);
    }
    // Some replies were still shown as they grew: streamed, or posted and edited.
    expect(fake.calls('chat.update').length + fake.calls('chat.startStream').length).toBeGreaterThan(0);
    expect(fake.count429()).toBe(0);
  }, 30_000);
});
