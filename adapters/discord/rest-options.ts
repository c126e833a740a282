import type { RESTOptions } from 'discord.js';
import type { Config } from '../../src/config/config.ts';
import type { GlobalBudget } from './global-budget.ts';
import { makeRequest } from './rest-request.ts';

/**
 * REST settings for discord.js: the API base (DISCORD_API_URL) and requests sent with Herald's undici, each first
 * taking its place in the global budget shared with other processes when there is one.
 */
export function restOptions(discord: NonNullable<Config['discord']>, globalBudget?: GlobalBudget): Partial<RESTOptions> {
  return {
    ...(discord.apiUrl !== undefined && { api: discord.apiUrl }),
    // discord.js counts its 50/s global window when it queues a request, Discord when the request arrives;
    // requests delayed by a busy event loop then land together with the next window's. 45 leaves headroom.
    globalRequestsPerSecond: 45,
    makeRequest: async (url, init) => {
      await globalBudget?.(url);
      return makeRequest(url, init as RequestInit);
    },
  };
}
