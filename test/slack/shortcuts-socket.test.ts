import { describe, expect, it } from 'vitest';
import { startSlackWorld, stopSlackWorld } from './herald-on-fake-slack.ts';

describe('Slack message shortcuts over Socket Mode', () => {
  it('answers a shortcut delivered as an interactive envelope', async () => {
    const world = await startSlackWorld({ mode: 'socket' });
    try {
      const { fake, herald } = world;
      const ts = String(fake.events.message({ text: 'Guten Morgen', channel: fake.channelId }).ts);
      const delivery = await fake.socket.sendInteractive(fake.messageShortcutPayload({ callbackId: 'translate', messageTs: ts }));
      expect(delivery.acked).toBe(true);
      await fake.waitFor(() => fake.ephemeralMessages()[0]);
      await herald.settled();
      expect(String(fake.ephemeralMessages()[0]!.text)).toContain('into American English');
    } finally {
      await stopSlackWorld(world);
    }
  });
});
