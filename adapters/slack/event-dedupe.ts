/**
 * Slack delivers an event again when it thinks the first delivery failed (X-Slack-Retry-Num), sometimes twice
 * outright, and a mention arrives both as `app_mention` and as `message`. The first instance to claim an event
 * id — or a message — in the shared store answers it; every other delivery is dropped.
 */
import type { Store } from '../../src/store/store.ts';

/** Longer than Slack's retry schedule (three retries within about an hour at worst). */
const CLAIM_TTL_MS = 2 * 60 * 60_000;

export function claimEvent(store: Store, eventId: string): Promise<boolean> {
  return store.setIfAbsent(`slack:event:${eventId}`, String(process.pid), CLAIM_TTL_MS);
}

export function claimMessage(store: Store, channel: string, ts: string): Promise<boolean> {
  return store.setIfAbsent(`slack:message:${channel}:${ts}`, String(process.pid), CLAIM_TTL_MS);
}
