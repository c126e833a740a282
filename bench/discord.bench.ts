import { loadavg } from 'node:os';
import { RESTEvents } from 'discord.js';
import { type DiscordWorldSetup, startDiscordHerald } from './discord-herald.ts';
import { LoadMeter, type ThreadLoad } from './load-meter.ts';
import { percentile } from './stats.ts';
import { startWorldThread } from './world-thread.ts';

const SEQUENTIAL_REPLIES = 200;
const CONCURRENT_BATCHES = 15;
const CONCURRENCY = 8;
const WARMUP = 20;
// A reply makes about four requests (typing, message, one or two edits); paced so the bot stays under Discord's
// global 50 requests per second, whose waits would be measured instead of Herald's own latency.
const SEQUENTIAL_GAP_MS = 100;
const BATCH_GAP_MS = 1000;
const STREAMS = 4;
const STREAM_WORDS = 250;
const STREAM_TOKENS_PER_SECOND = 40;
const EDIT_BUCKET = { limit: 5, windowMs: 5000 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function summary(values: number[]): string {
  return `p50 ${percentile(values, 50)} ms · p90 ${percentile(values, 90)} ms · p99 ${percentile(values, 99)} ms · max ${Math.max(...values)} ms`;
}

export async function run(): Promise<{ markdown: string }> {
  const world = await startWorldThread(new URL('./discord-world.ts', import.meta.url));
  const setup = await world.call<DiscordWorldSetup>('setup');
  const herald = await startDiscordHerald(setup);
  const { bot, finished } = herald;

  let replies = 0;
  // Each reply in a channel of its own, so the measurement is never a wait for a create bucket.
  const channels = (n: number) => Promise.all(Array.from({ length: n }, (_, i) => world.call<string>('channel', { name: `bench-${replies}-${i}` })));
  /** Sends one mention per channel, waits for the replies, returns first token → first message per reply. */
  const ask = async (channelIds: string[], content: string): Promise<number[]> => {
    const tokensBefore = (await world.call<number[]>('firstTokens')).length;
    for (const channelId of channelIds) await world.call('send', { channelId, content: `<@${setup.botId}> ${content}` });
    replies += channelIds.length;
    await finished(replies);
    const firstTokens = (await world.call<number[]>('firstTokens')).slice(tokensBefore).sort((a, b) => a - b);
    const firstMessages = (await world.call<number[]>('firstMessages', { channelIds })).sort((a, b) => a - b);
    // Replies running at once get their first tokens in any order: pair them by order of arrival.
    return firstMessages.map((at, i) => at - firstTokens[i]!);
  };

  const meter = () => new LoadMeter(() => world.call<ThreadLoad>('threadLoad'));
  // discord.js holding a request back for its own rate-limit accounting (the global window, a bucket) while measured.
  let heldBack = 0;
  let measuring = false;
  bot.client.rest.on(RESTEvents.RateLimited, () => {
    if (measuring) heldBack++;
  });

  try {
    for (let i = 0; i < WARMUP; i++) await ask(await channels(1), `warm up ${i}`);
    measuring = true;
    const sequential: number[] = [];
    const sequentialLoad = meter();
    await sequentialLoad.start();
    for (let i = 0; i < SEQUENTIAL_REPLIES; i++) {
      const ids = await channels(1);
      sequential.push(...(await sequentialLoad.during(() => ask(ids, `hello number ${i}`))));
      await sleep(SEQUENTIAL_GAP_MS);
    }
    const sequentialReport = await sequentialLoad.report(SEQUENTIAL_REPLIES);
    const concurrent: number[] = [];
    const concurrentLoad = meter();
    await concurrentLoad.start();
    for (let i = 0; i < CONCURRENT_BATCHES; i++) {
      const ids = await channels(CONCURRENCY);
      concurrent.push(...(await concurrentLoad.during(() => ask(ids, `all at once ${i}`))));
      await sleep(BATCH_GAP_MS);
    }
    const concurrentReport = await concurrentLoad.report(CONCURRENT_BATCHES * CONCURRENCY);
    measuring = false;

    await world.call('pace', { tokensPerSecond: STREAM_TOKENS_PER_SECOND });
    const streamChannels = await channels(STREAMS);
    const startedAt = Date.now();
    await ask(streamChannels, `long ${STREAM_WORDS}`);
    const streamSeconds = (Date.now() - startedAt) / 1000;
    const streamRows = await Promise.all(
      streamChannels.map(async (channelId) => {
        const { created, edits } = await world.call<{ created: number; edits: number[] }>('edits', { channelId });
        const allowance = EDIT_BUCKET.limit * (Math.floor((edits.at(-1)! - edits[0]!) / EDIT_BUCKET.windowMs) + 1);
        const gaps = edits.slice(1).map((at, i) => at - edits[i]!);
        return { seconds: (edits.at(-1)! - created) / 1000, edits: edits.length, allowance, maxGap: Math.max(...gaps) };
      }),
    );
    const limited = await world.call<string[]>('rateLimited');

    const lines = [
      '## Discord adapter: first token to first Discord call, edits against the allowance',
      '',
      'The real core and discord.js client in the main thread; the service emulator and the fake Discord in a worker',
      'thread (they are other machines in production). A proxy in front of the emulator notes when the first answer',
      "token leaves the service; the fake notes when the reply's first message reaches it (POST /channels/:id/messages).",
      'Goal: p99 ≤ 20 ms.',
      '',
      '| replies | first token → first Discord call |',
      '|---|---|',
      `| ${SEQUENTIAL_REPLIES} one after another | ${summary(sequential)} |`,
      `| ${CONCURRENT_BATCHES * CONCURRENCY} in batches of ${CONCURRENCY} at once | ${summary(concurrent)} |`,
      '',
      `One after another: ${sequentialReport}`,
      `In batches: ${concurrentReport}`,
      `discord.js held a request back for its own rate-limit accounting ${heldBack} times while these were measured.`,
      '',
      `${STREAMS} answers of ${STREAM_WORDS} words streamed at once (${STREAM_TOKENS_PER_SECOND} tokens/s, ${streamSeconds.toFixed(1)} s), one channel each,`,
      `on Discord-like buckets of ${EDIT_BUCKET.limit} edits per ${EDIT_BUCKET.windowMs / 1000} s per channel:`,
      '',
      '| reply | streamed for | edits | allowance | longest gap between edits |',
      '|---|---|---|---|---|',
      ...streamRows.map((r, i) => `| ${i + 1} | ${r.seconds.toFixed(1)} s | ${r.edits} | ${r.allowance} | ${r.maxGap} ms |`),
      '',
      `Load average when done: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' / ')} (other work on the machine shows up in the tail).`,
      `429 answers from the fake Discord over the whole run: ${limited.length}${limited.length > 0 ? ` (${limited.join('; ')})` : ''}.`,
    ];
    return { markdown: lines.join('\n') };
  } finally {
    await herald.stop();
    await world.stop();
  }
}
