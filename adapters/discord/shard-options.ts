import type { ClientOptions } from 'discord.js';
import type { DiscordShards } from '../../src/config/config.ts';

/** discord.js's `shards` and `shardCount` for SHARD_COUNT and SHARD_IDS: the listed shards (default all), or 'auto'. */
export function shardOptions({ count, ids }: DiscordShards): { shards: NonNullable<ClientOptions['shards']>; shardCount: number } {
  // With 'auto' discord.js ignores shardCount and takes the count GET /gateway/bot recommends at login.
  if (count === 'auto') return { shards: 'auto', shardCount: 1 };
  return { shards: ids ?? Array.from({ length: count }, (_, id) => id), shardCount: count };
}
