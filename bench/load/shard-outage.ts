import { setTimeout as sleep } from 'node:timers/promises';
import type { FakeDiscord } from '../../test/fakes/discord/index.ts';

/** What users of one shard's servers lose while the process that ran it is dead and until another takes it. */
export interface ShardOutage {
  /** From the SIGKILL until the replacement identified for the shard (ms); undefined if it never did. */
  gapMs: number | undefined;
  /** From the SIGKILL until the replacement process said it was running (ms). */
  restartMs: number;
  probes: { before: Window; gap: Window; after: Window };
}

/** Questions sent in one stretch of the outage, and those never answered. */
interface Window {
  sent: number;
  lost: number;
}

export interface ShardOutageOptions {
  fake: FakeDiscord;
  shard: [number, number];
  /** SIGKILLs the process that runs the shard. */
  kill(): Promise<void>;
  /** Starts its replacement (same SHARD_IDS); resolves once it is running. */
  replace(): Promise<void>;
  /** A question goes to the shard's servers this often, from a second before the kill until a second after. */
  everyMs: number;
  /** How long after the last question to wait for the answers. */
  answerTimeoutMs: number;
}

const CHANNELS = 10;
const LEAD_MS = 1000;
const IDENTIFY_TIMEOUT_MS = 30_000;

/**
 * Kills the process running `shard` while a user keeps asking questions in a server on it, starts a replacement,
 * and counts the questions that were never answered: Discord does not replay to a new session what the old one
 * missed, and the answers the dead process was writing are lost unless another instance finishes them.
 */
export async function measureShardOutage(options: ShardOutageOptions): Promise<ShardOutage> {
  const { fake, shard } = options;
  const asker = fake.addUser({ username: 'outage-asker' });
  const guild = fake.addGuild({ name: `outage on shard ${shard[0]}`, memberIds: [asker.id], shard });
  const channels = Array.from({ length: CHANNELS }, (_, i) => fake.addChannel({ guildId: guild.id, name: `outage-${i}` }).id);
  const bot = fake.botUser.id;
  const sent: Array<{ at: number; channelId: string; text: string }> = [];
  let asking = true;
  const questions = (async () => {
    for (let i = 0; asking; i += 1) {
      const channelId = channels[i % CHANNELS]!;
      // The question mark ends it: an answer still growing towards `probe 12?` does not pass for `probe 1?`.
      const text = `probe ${i}?`;
      sent.push({ at: Date.now(), channelId, text });
      fake.sendMessage({ channelId, authorId: asker.id, content: `<@${bot}> ${text}` });
      await sleep(options.everyMs);
    }
  })();
  await sleep(LEAD_MS);
  const killedAt = Date.now();
  await options.kill();
  await options.replace();
  const restartMs = Date.now() - killedAt;
  const identified = await waitForIdentify(fake, shard[0], killedAt, IDENTIFY_TIMEOUT_MS);
  await sleep(LEAD_MS);
  asking = false;
  await questions;
  const answered = (q: (typeof sent)[number]) => fake.messages(q.channelId).some((m) => m.authorId === bot && m.content.endsWith(q.text));
  const end = identified ?? Number.POSITIVE_INFINITY;
  // Those asked in the gap never reach Herald; the others may, those the dead process was answering included.
  const deadline = Date.now() + options.answerTimeoutMs;
  while (Date.now() < deadline && !sent.every((q) => (q.at >= killedAt && q.at < end) || answered(q))) await sleep(100);
  const window = (from: number, to: number): Window => {
    const inside = sent.filter((q) => q.at >= from && q.at < to);
    return { sent: inside.length, lost: inside.filter((q) => !answered(q)).length };
  };
  return {
    gapMs: identified === undefined ? undefined : identified - killedAt,
    restartMs,
    probes: { before: window(0, killedAt), gap: window(killedAt, end), after: window(end, Number.POSITIVE_INFINITY) },
  };
}

/** When a new session identified for the shard after `since` (the fake's clock), within `timeoutMs`. */
async function waitForIdentify(fake: FakeDiscord, shardId: number, since: number, timeoutMs: number): Promise<number | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const identify = fake.gatewayReceived.find((p) => p.op === 2 && p.at > since && (p.d as { shard?: number[] }).shard?.[0] === shardId);
    if (identify) return identify.at;
    if (Date.now() > deadline) return undefined;
    await sleep(50);
  }
}
