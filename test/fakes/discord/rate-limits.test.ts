import { REST, type Client, type TextChannel } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from './index.ts';
import { readyClient } from './test-client.ts';

describe('fake discord: rate limits like Discord', () => {
  let fake: FakeDiscord;
  let client: Client | undefined;

  afterEach(async () => {
    await client?.destroy();
    client = undefined;
    await fake.close();
  });

  async function post(channelId: string, content: string): Promise<Response> {
    return fetch(`${fake.restUrl}/v10/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { Authorization: `Bot ${fake.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ content }),
    });
  }

  it('serves per-channel buckets with X-RateLimit headers, then 429 with retry_after to a naive loop', async () => {
    fake = await startFakeDiscord({ rateLimits: { messageCreate: { limit: 3, windowMs: 1000 } } });
    const responses: Response[] = [];
    for (let i = 0; i < 5; i++) responses.push(await post(fake.textChannel.id, `spam ${i}`));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
    expect(responses.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0', '0', '0']);
    const first = responses[0]!.headers;
    expect(first.get('x-ratelimit-limit')).toBe('3');
    expect(first.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);
    expect(Number(first.get('x-ratelimit-reset-after'))).toBeGreaterThan(0.9);
    expect(Number(first.get('x-ratelimit-reset')) * 1000).toBeGreaterThan(Date.now());
    const limited = responses[3]!;
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.headers.get('x-ratelimit-scope')).toBe('user');
    const body = (await limited.json()) as { message: string; retry_after: number; global: boolean };
    expect(body.message).toBe('You are being rate limited.');
    expect(body.global).toBe(false);
    expect(body.retry_after).toBeGreaterThan(0.5);
    expect(fake.rateLimitedCount).toBe(2);
    expect(fake.messages(fake.textChannel.id)).toHaveLength(3);
    // The major parameter: another channel has its own bucket.
    expect((await post(fake.dmChannel.id, 'elsewhere')).status).toBe(200);
  });

  it('applies the global limit across routes (429 with global: true)', async () => {
    fake = await startFakeDiscord({ rateLimits: { global: { limit: 4, windowMs: 1000 } } });
    const statuses: number[] = [];
    let globalResponse: Response | undefined;
    for (let i = 0; i < 6; i++) {
      const response = await fetch(`${fake.restUrl}/v10/users/@me`, { headers: { Authorization: `Bot ${fake.token}` } });
      statuses.push(response.status);
      if (response.status === 429) globalResponse = response;
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    expect(globalResponse!.headers.get('x-ratelimit-global')).toBe('true');
    expect(globalResponse!.headers.get('x-ratelimit-scope')).toBe('global');
    expect(await globalResponse!.json()).toMatchObject({ global: true });
    expect(fake.rateLimitHits.every((hit) => hit.global)).toBe(true);
  });

  it('lets discord.js queue a burst within the bucket: every message delivered, zero 429s', async () => {
    fake = await startFakeDiscord({ heartbeatIntervalMs: 1000, rateLimits: { messageCreate: { limit: 3, windowMs: 400 } } });
    client = await readyClient(fake);
    const channel = client.channels.cache.get(fake.textChannel.id) as TextChannel;
    const started = Date.now();
    await Promise.all(Array.from({ length: 8 }, (_, i) => channel.send(`message ${i}`)));
    expect(fake.rateLimitedCount).toBe(0);
    expect(fake.messages(fake.textChannel.id).map((m) => m.content)).toEqual(Array.from({ length: 8 }, (_, i) => `message ${i}`));
    expect(Date.now() - started).toBeGreaterThanOrEqual(800);
  });

  it('serves 429s when two REST clients share the bucket, and discord.js retries until all are delivered', async () => {
    fake = await startFakeDiscord({ rateLimits: { messageCreate: { limit: 2, windowMs: 300 } } });
    const makeRest = () => new REST({ api: fake.restUrl }).setToken(fake.token);
    const [one, two] = [makeRest(), makeRest()];
    const route = `/channels/${fake.textChannel.id}/messages` as const;
    await Promise.all([
      ...[0, 1, 2].map((i) => one.post(route, { body: { content: `one ${i}` } })),
      ...[0, 1, 2].map((i) => two.post(route, { body: { content: `two ${i}` } })),
    ]);
    expect(fake.rateLimitedCount).toBeGreaterThan(0);
    expect(fake.messages(fake.textChannel.id)).toHaveLength(6);
    one.clearHashSweeper();
    one.clearHandlerSweeper();
    two.clearHashSweeper();
    two.clearHandlerSweeper();
  });
});
