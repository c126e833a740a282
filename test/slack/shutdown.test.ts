import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../fakes/slack/index.ts';
import { startSlackWorld, stopSlackWorld, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

describe('stopping Herald on Slack', () => {
  let fake: FakeSlack;
  let emu: Emulator;
  let herald: HeraldOnSlack;

  beforeEach(async () => {
    ({ fake, emu, herald } = await startSlackWorld({ emulator: { pace: { tokensPerSecond: 40, ttsChunkIntervalMs: 0 } } }));
  });

  afterEach(() => stopSlackWorld({ fake, emu, herald }));

  it('ends a reply in progress with a note instead of leaving it half-written, and takes no new events', async () => {
    await fake.deliverEvent(fake.events.appMention({ text: 'long 400' }));
    const reply = await fake.waitFor(() => fake.botMessages().find((m) => m.stream?.state === 'streaming'));
    await herald.slack.stop();
    expect(reply.stream?.state).toBe('stopped');
    expect(reply.text).toMatch(/⚠️ The reply was cancelled\.$/);
    const late = await fake.deliverEvent(fake.events.appMention({ text: 'too late' }));
    expect(late.status).toBeUndefined();
  });
});
