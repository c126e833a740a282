/** A Slack message's key in the core: its ts is unique only within its channel. */
export function messageKey(channel: string, ts: string): string {
  return `${channel}:${ts}`;
}

/** The ts in a key made by messageKey. */
export function tsOfKey(key: string): string {
  return key.slice(key.indexOf(':') + 1);
}

/** A Slack ts ("1700000000.123456") as ms since the epoch. */
export function tsMs(ts: string): number {
  return Math.round(Number(ts) * 1000);
}
