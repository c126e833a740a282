import type { RESTOptions } from 'discord.js';
import type { Config } from '../../src/config/config.ts';
import { makeRequest } from './rest-request.ts';

/** REST settings for discord.js: the API base (DISCORD_API_URL) and requests sent with Herald's undici. */
export function restOptions(discord: NonNullable<Config['discord']>): Partial<RESTOptions> {
  return {
    ...(discord.apiUrl !== undefined && { api: discord.apiUrl }),
    // discord.js counts its 50/s global window when it queues a request, Discord when the request arrives;
    // requests delayed by a busy event loop then land together with the next window's. 45 leaves headroom.
    globalRequestsPerSecond: 45,
    makeRequest: (url, init) => makeRequest(url, init as RequestInit),
  };
}
