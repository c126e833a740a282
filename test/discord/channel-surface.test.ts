import type { SendableChannels } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelSurface } from '../../adapters/discord/channel-surface.ts';
import { RouteRateLimits } from '../../adapters/discord/route-rate-limits.ts';
import { MessageFlag } from '../fakes/discord/index.ts';
import { startHarness, type Harness } from './harness.ts';
import { silentLogger } from '../helpers/logger.ts';

describe('discord: a reply streamed into a channel, on the wire', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });

  afterAll(async () => {
    await h.close();
  });

  /** A surface in a new channel; `asked` is a user's message there that the reply answers. */
  async function surfaceIn(name: string, asked?: string) {
    const channelId = h.fake.addChannel({ name }).id;
    const replyTo = asked === undefined ? undefined : (h.fake.sendMessage({ channelId, content: asked }).id as string);
    const channel = (await h.bot.client.channels.fetch(channelId)) as SendableChannels;
    const surface = new ChannelSurface({ channel, rateLimits: new RouteRateLimits(), logger: silentLogger, uploadLimitBytes: 1000, replyTo });
    return { channelId, replyTo, surface };
  }

  it('answers the user as a Discord reply without pinging, and only with the first message', async () => {
    const { channelId, replyTo, surface } = await surfaceIn('replies', 'hello');
    const first = await surface.open(`Hi <@${h.fake.users.alice.id}>`);
    const second = await surface.open('More');
    await surface.close(first, `Hi <@${h.fake.users.alice.id}>, done`);
    const [shown, next] = h.botMessages(channelId);
    expect(shown).toMatchObject({ id: first, content: `Hi <@${h.fake.users.alice.id}>, done`, mentionIds: [] });
    expect(shown!.reference?.messageId).toBe(replyTo);
    expect(next).toMatchObject({ id: second, content: 'More' });
    expect(next!.reference).toBeFalsy();
    surface.dispose();
  });

  it('hides previews with SUPPRESS_EMBEDS while wrapped links would not fit, and shows wrapped links once they do', async () => {
    const { channelId, surface } = await surfaceIn('previews');
    const crowded = Array.from({ length: 60 }, (_, i) => `https://example.org/page/${String(i).padStart(6, '0')}`).join(' ');
    expect(crowded.length).toBeLessThanOrEqual(2000);
    const handle = await surface.open(crowded);
    expect(h.botMessages(channelId)[0]!.flags & MessageFlag.SuppressEmbeds).toBe(MessageFlag.SuppressEmbeds);
    await surface.close(handle, 'See https://example.org/one.');
    const [message] = h.botMessages(channelId);
    expect(message!.content).toBe('See <https://example.org/one>.');
    expect(message!.flags & MessageFlag.SuppressEmbeds).toBe(0);
    surface.dispose();
  });
});
