import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';

// `long 700` is 1238 tokens: at 41 tokens a second the service streams for about 30 seconds.
const WORDS = 700;
const TOKENS_PER_SECOND = 41;
// The fake's message buckets, like Discord's: 5 edits and 5 new messages per 5 seconds per channel.
const BUCKET = { limit: 5, windowMs: 5000 };

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ emulator: { pace: { tokensPerSecond: TOKENS_PER_SECOND, ttsChunkIntervalMs: 0 } } });
});

afterAll(async () => {
  await h.close();
});

it('streams a 30-second answer live without a single 429, within the edit allowance', { timeout: 60_000 }, async () => {
  const { fake, emu } = h;
  const channel = fake.addChannel({ name: 'long-answers' });
  const before = h.finished;
  fake.sendMessage({ channelId: channel.id, content: `${h.mention} long ${WORDS}` });
  await h.repliesFinished(before + 1, 50_000);

  const serviceAsked = emu.requests.find((r) => r.endpoint === 'chat')!.receivedAt;
  const inChannel = fake.requests.filter((r) => r.params.channel_id === channel.id);
  const creates = inChannel.filter((r) => r.method === 'POST' && r.route === '/channels/:channel_id/messages');
  const edits = inChannel.filter((r) => r.method === 'PATCH');
  const streamedFor = edits.at(-1)!.timestamp - creates[0]!.timestamp;
  expect(streamedFor).toBeGreaterThan(25_000);

  expect(fake.rateLimitedCount).toBe(0);
  const windows = Math.floor((edits.at(-1)!.timestamp - edits[0]!.timestamp) / BUCKET.windowMs) + 1;
  expect(edits.length).toBeLessThanOrEqual(BUCKET.limit * windows);
  // Live, not just a first and a last version: most of the allowance is used, spread evenly rather than in
  // bursts that would leave the text frozen while the bucket refills.
  expect(edits.length).toBeGreaterThanOrEqual(Math.floor(BUCKET.limit * windows * 0.7));
  const gaps = edits.slice(1).map((edit, i) => edit.timestamp - edits[i]!.timestamp);
  expect(Math.max(...gaps)).toBeLessThan(2000);

  // The first text shows as soon as the first tokens are there (the typing indicator before it).
  expect(creates[0]!.timestamp - serviceAsked).toBeLessThan(1000);
  const typing = inChannel.find((r) => r.route === '/channels/:channel_id/typing')!;
  expect(typing.timestamp).toBeLessThanOrEqual(creates[0]!.timestamp);

  // The whole answer, split at 2000 characters between sentences, every message final.
  const messages = h.botMessages(channel.id);
  expect(messages.length).toBe(3);
  for (const message of messages) expect(message.content.length).toBeLessThanOrEqual(2000);
  const words = messages.flatMap((m) => m.content.split(/\s+/).filter(Boolean));
  expect(words).toHaveLength(WORDS);
  expect(words[0]).toBe('Alpha');
  for (const message of messages) expect(message.content).toMatch(/\.$/);
});
