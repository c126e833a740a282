import { DISCORD_EPOCH } from './snowflake.ts';

/** Discord's rule: a guild belongs to shard `(guild_id >> 22) % shard_count`. */
export function shardOf(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}

let increment = 0n;

/**
 * A fresh snowflake whose guild lives on shard `shardId` of `shardCount`: its timestamp is moved up to
 * shardCount - 1 ms ahead to fit. Worker id 2, so it never meets the ids of snowflake() (worker 1).
 */
export function snowflakeOnShard(shardId: number, shardCount: number, now: number = Date.now()): string {
  const count = BigInt(shardCount);
  const base = BigInt(now) - DISCORD_EPOCH;
  const timestamp = base + ((BigInt(shardId) - (base % count) + count) % count);
  increment = (increment + 1n) & 0xfffn;
  return ((timestamp << 22n) | (2n << 17n) | increment).toString();
}

/**
 * The guild a dispatch is about, for routing: GUILD_* events name it as `id`, every other guild event as
 * `guild_id`; null for direct messages and other events outside a guild, which Discord sends to shard 0.
 */
export function dispatchGuild(event: string, d: Record<string, unknown>): string | null {
  if (event === 'GUILD_CREATE' || event === 'GUILD_UPDATE' || event === 'GUILD_DELETE') return String(d.id);
  return typeof d.guild_id === 'string' ? d.guild_id : null;
}
