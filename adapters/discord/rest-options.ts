import type { RESTOptions } from 'discord.js';
import type { Config } from '../../src/config/config.ts';
import { makeRequest } from './rest-request.ts';

/** REST settings for discord.js: the API base (DISCORD_API_URL) and requests sent with Herald's undici. */
export function restOptions(discord: NonNullable<Config['discord']>): Partial<RESTOptions> {
  return {
    ...(discord.apiUrl !== undefined && { api: discord.apiUrl }),
    makeRequest: (url, init) => makeRequest(url, init as RequestInit),
  };
}
