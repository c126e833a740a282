import type { RESTOptions } from 'discord.js';
import type { Config } from '../../src/config/config.ts';

/**
 * REST settings for discord.js. Requests go through Node's fetch: discord.js's own (older) undici hands its
 * multipart bodies to the global dispatcher, which Herald's undici 8 replaces with one that refuses them, so
 * every upload would fail. fetch encodes the body itself and works with any dispatcher.
 */
export function restOptions(discord: NonNullable<Config['discord']>): Partial<RESTOptions> {
  return {
    ...(discord.apiUrl !== undefined && { api: discord.apiUrl }),
    makeRequest: (url, init) => fetch(url, init as RequestInit),
  };
}
