import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCommands } from '../../adapters/discord/index.ts';
import { ONE_SECOND_BUCKETS, startHarness, type Harness } from './harness.ts';

describe('discord: /reset in a server channel', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ fake: { rateLimits: ONE_SECOND_BUCKETS } });
    await registerCommands(h.config);
  });

  afterAll(async () => {
    await h.close();
  });

  async function reset(channelId: string): Promise<string> {
    const before = h.finished;
    const record = h.fake.invokeCommand({ name: 'reset', channelId });
    await h.repliesFinished(before + 1);
    return h.fake.message(record.originalMessageId!)!.content;
  }

  it('forgets the reply-chain conversations of the channel', async () => {
    const { fake } = h;
    const channel = fake.addChannel({ name: 'forget-me' });
    let before = h.finished;
    fake.sendMessage({ channelId: channel.id, content: `${h.mention} my secret words` });
    await h.repliesFinished(before + 1);
    const answer = h.botMessages(channel.id)[0]!;

    expect(await reset(channel.id)).toBe('Done — I have forgotten this conversation.');

    before = h.finished;
    fake.sendMessage({ channelId: channel.id, content: 'recall', messageReference: { messageId: answer.id } });
    await h.repliesFinished(before + 1);
    expect(h.botMessages(channel.id)[1]?.content).toBe('You first said: [Alice]: recall');

    expect(await reset(channel.id)).toBe('Done — I have forgotten this conversation.');
    expect(await reset(channel.id)).toBe('There was nothing to forget here.');
  });
});
