export const DISCORD_EPOCH = 1420070400000n;
let increment = 0n;

/**
 * A Discord snowflake: 42 bits of ms since the Discord epoch, worker 1, process 0, 12-bit increment. The increment
 * goes up with every id the process makes, as Discord documents, so ids made for the same millisecond never meet
 * even when ids for other times (seeded history) come between them.
 */
export function snowflake(at: number = Date.now()): string {
  const timestamp = BigInt(at) - DISCORD_EPOCH;
  increment = (increment + 1n) & 0xfffn;
  return ((timestamp << 22n) | (1n << 17n) | increment).toString();
}

/** Discord writes timestamps with microseconds and an explicit offset: 2024-05-01T10:00:00.123000+00:00. */
export function discordTimestamp(at: number = Date.now()): string {
  return new Date(at).toISOString().replace('Z', '000+00:00');
}
