import { describe, expect, it } from 'vitest';
import { RouteRateLimits, routeKey } from '../../adapters/discord/route-rate-limits.ts';

function headers(values: Record<string, string>) {
  return { get: (name: string) => values[name.toLowerCase()] ?? null };
}

describe('discord: route rate limits', () => {
  it('keys buckets like Discord: route with ids replaced, split by the major parameter', () => {
    const channel = '1234567890123456789';
    expect(routeKey('patch', `/channels/${channel}/messages/1111111111111111111`)).toBe(`PATCH /channels/:id/messages/:id ${channel}`);
    expect(routeKey('PATCH', `/channels/${channel}/messages/2222222222222222222`)).toBe(
      routeKey('PATCH', `/channels/${channel}/messages/3333333333333333333`),
    );
    expect(routeKey('POST', `/webhooks/${channel}/secret-token_x`)).toBe(`POST /webhooks/:id/:token ${channel}/secret-token_x`);
    expect(routeKey('GET', '/gateway/bot')).toBe('GET /gateway/bot global');
  });

  it('spreads the calls a bucket still allows over the time to its reset, shared by the replies using it', () => {
    let now = 10_000;
    const rateLimits = new RouteRateLimits(() => now);
    const key = routeKey('PATCH', '/channels/1234567890123456789/messages/1111111111111111111');
    expect(rateLimits.delayMs(key, 0)).toBe(0);
    rateLimits.observe(
      'PATCH',
      '/channels/1234567890123456789/messages/1111111111111111111',
      headers({
        'x-ratelimit-limit': '5',
        'x-ratelimit-remaining': '4',
        'x-ratelimit-reset-after': '5.000',
      }),
    );
    expect(rateLimits.delayMs(key, 0)).toBe(1250);
    const release = rateLimits.share(key);
    const other = rateLimits.share(key);
    expect(rateLimits.delayMs(key, 0)).toBe(2500);
    other();
    other();
    expect(rateLimits.delayMs(key, 0)).toBe(1250);
    release();
    now += 4000;
    expect(rateLimits.delayMs(key, 0)).toBe(250);
    rateLimits.observe('PATCH', '/channels/1234567890123456789/messages/1', headers({}));
    rateLimits.observe(
      'PATCH',
      '/channels/1234567890123456789/messages/1111111111111111111',
      headers({
        'x-ratelimit-limit': '5',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset-after': '0.700',
      }),
    );
    expect(rateLimits.delayMs(key, 0)).toBe(700);
    now += 701;
    expect(rateLimits.delayMs(key, 0)).toBe(0);
  });
});
