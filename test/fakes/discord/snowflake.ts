export const DISCORD_EPOCH = 1420070400000n;
let lastTimestamp = 0n;
let increment = 0n;

/** A Discord snowflake: 42 bits of ms since the Discord epoch, worker 1, process 0, 12-bit increment. */
export function snowflake(at: number = Date.now()): string {
  const timestamp = BigInt(at) - DISCORD_EPOCH;
  increment = timestamp === lastTimestamp ? (increment + 1n) & 0xfffn : 0n;
  lastTimestamp = timestamp;
  return ((timestamp << 22n) | (1n << 17n) | increment).toString();
}

/** Discord writes timestamps with microseconds and an explicit offset: 2024-05-01T10:00:00.123000+00:00. */
export function discordTimestamp(at: number = Date.now()): string {
  return new Date(at).toISOString().replace('Z', '000+00:00');
}
