import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { startDiscord, type DiscordBot } from '../adapters/discord/index.ts';
import { loadConfig } from '../src/config/config.ts';
import { createCore, type Core } from '../src/core.ts';
import { createLogger } from '../src/log/logger.ts';
import { startFakeDiscord, type FakeDiscord } from '../test/fakes/discord/index.ts';
import { startEmulator, type Emulator } from '../test/fakes/service/emulator.ts';

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

/**
 * Sits between Herald and the service emulator and notes when each response's first answer token leaves
 * for Herald: the start of the latency that the Discord adapter adds.
 */
async function firstTokenProxy(target: string): Promise<{ url: string; firstTokenAt: number[]; close(): Promise<void> }> {
  const firstTokenAt: number[] = [];
  const { hostname, port } = new URL(target);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const upstream = httpRequest({ hostname, port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      let seen = false;
      answer.on('data', (chunk: Buffer) => {
        if (!seen && /"content":"[^"]/.test(chunk.toString('utf8'))) {
          seen = true;
          firstTokenAt.push(Date.now());
        }
        res.write(chunk);
      });
      answer.on('end', () => res.end());
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    firstTokenAt,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

interface Rig {
  fake: FakeDiscord;
  emu: Emulator;
  core: Core;
  bot: DiscordBot;
  proxy: Awaited<ReturnType<typeof firstTokenProxy>>;
  /** Resolves when `count` replies have finished since the rig started. */
  finished(count: number): Promise<void>;
}

async function startRig(): Promise<Rig> {
  const emu = await startEmulator();
  const proxy = await firstTokenProxy(emu.url);
  const fake = await startFakeDiscord({ heartbeatIntervalMs: 5000 });
  const config = loadConfig(
    {
      API_BASE_URL: proxy.url, API_KEY: emu.apiKey, STORE_URL: 'memory://', DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.restUrl,
      THINKING: 'off', WEB_SEARCH: 'off', QUOTA_USER_PER_MINUTE: '100000', QUOTA_GUILD_PER_MINUTE: '100000',
    },
    { envFile: '/nonexistent/.env' },
  );
  const logger = createLogger({ level: 'silent', secrets: [] });
  const core = await createCore(config, logger);
  let done = 0;
  const waiters = new Set<() => void>();
  const never = new AbortController().signal;
  const bot = await startDiscord({
    core,
    logger,
    hooks: {
      shutdown: {
        drainingSignal: never,
        deadlineSignal: never,
        track(work) {
          const settle = () => {
            done++;
            for (const wake of waiters) wake();
          };
          work.then(settle, settle);
          return work;
        },
        register() {},
      },
    },
  });
  return {
    fake, emu, core, bot, proxy,
    finished: (count) => new Promise<void>((resolve) => {
      const check = () => {
        if (done < count) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    }),
  };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function summary(values: number[]): string {
  return `p50 ${percentile(values, 50)} ms · p90 ${percentile(values, 90)} ms · p99 ${percentile(values, 99)} ms · max ${Math.max(...values)} ms`;
}

/** Milliseconds from the service's first token to the fake Discord receiving the reply's first message, per channel. */
function latencies(rig: Rig, channelIds: string[], firstTokens: number[]): number[] {
  return channelIds.map((id, i) => {
    const created = rig.fake.requests.find((r) => r.method === 'POST' && r.route === '/channels/:channel_id/messages' && r.params.channel_id === id);
    if (!created) throw new Error(`no reply in channel ${id}`);
    return created.timestamp - firstTokens[i]!;
  });
}

export async function run(): Promise<{ markdown: string }> {
  const rig = await startRig();
  const { fake } = rig;
  let replies = 0;
  try {
    // Each reply in a channel of its own, so the measurement is never a wait for a create bucket.
    const ask = async (count: number, channelIds: string[]) => {
      const tokensBefore = rig.proxy.firstTokenAt.length;
      for (const id of channelIds) fake.sendMessage({ channelId: id, content: `<@${fake.botUser.id}> hello number ${count}` });
      replies += channelIds.length;
      await rig.finished(replies);
      return rig.proxy.firstTokenAt.slice(tokensBefore);
    };
    const channels = (n: number) => Array.from({ length: n }, (_, i) => fake.addChannel({ name: `bench-${replies}-${i}` }).id);

    for (let i = 0; i < WARMUP; i++) await ask(i, channels(1));
    const sequential: number[] = [];
    for (let i = 0; i < SEQUENTIAL_REPLIES; i++) {
      const ids = channels(1);
      sequential.push(...latencies(rig, ids, await ask(i, ids)));
      await sleep(SEQUENTIAL_GAP_MS);
    }
    const concurrent: number[] = [];
    for (let i = 0; i < CONCURRENT_BATCHES; i++) {
      const ids = channels(CONCURRENCY);
      const firstTokens = await ask(i, ids);
      // Concurrent replies get their first tokens in any order: match them by the order of the first messages.
      const created = ids.map((id) => fake.requests.find((r) => r.method === 'POST' && r.route === '/channels/:channel_id/messages' && r.params.channel_id === id)!.timestamp);
      const sortedTokens = [...firstTokens].sort((a, b) => a - b);
      const sortedCreated = [...created].sort((a, b) => a - b);
      concurrent.push(...sortedCreated.map((at, k) => at - sortedTokens[k]!));
      await sleep(BATCH_GAP_MS);
    }

    rig.emu.pace.tokensPerSecond = STREAM_TOKENS_PER_SECOND;
    const streamChannels = channels(STREAMS);
    const startedAt = Date.now();
    for (const id of streamChannels) fake.sendMessage({ channelId: id, content: `<@${fake.botUser.id}> long ${STREAM_WORDS}` });
    replies += STREAMS;
    await rig.finished(replies);
    const streamRows = streamChannels.map((id) => {
      const inChannel = fake.requests.filter((r) => r.params.channel_id === id);
      const edits = inChannel.filter((r) => r.method === 'PATCH');
      const first = inChannel.find((r) => r.method === 'POST' && r.route === '/channels/:channel_id/messages')!.timestamp;
      const last = edits.at(-1)!.timestamp;
      const allowance = EDIT_BUCKET.limit * (Math.floor((last - edits[0]!.timestamp) / EDIT_BUCKET.windowMs) + 1);
      const gaps = edits.slice(1).map((e, i) => e.timestamp - edits[i]!.timestamp);
      return { seconds: (last - first) / 1000, edits: edits.length, allowance, maxGap: Math.max(...gaps) };
    });
    const streamSeconds = (Date.now() - startedAt) / 1000;

    const lines = [
      '## Discord adapter: first token to first Discord call, edits against the allowance',
      '',
      'The real core and discord.js client against the service emulator and the fake Discord, in one process. A proxy',
      'in front of the emulator notes when the first answer token leaves the service; the fake notes when the reply\'s',
      'first message reaches it (POST /channels/:id/messages). Goal: p99 ≤ 20 ms.',
      '',
      '| replies | first token → first Discord call |',
      '|---|---|',
      `| ${SEQUENTIAL_REPLIES} one after another | ${summary(sequential)} |`,
      `| ${CONCURRENT_BATCHES * CONCURRENCY} in batches of ${CONCURRENCY} at once | ${summary(concurrent)} |`,
      '',
      `${STREAMS} answers of ${STREAM_WORDS} words streamed at once (${STREAM_TOKENS_PER_SECOND} tokens/s, ${streamSeconds.toFixed(1)} s), one channel each,`,
      `on Discord-like buckets of ${EDIT_BUCKET.limit} edits per ${EDIT_BUCKET.windowMs / 1000} s per channel:`,
      '',
      '| reply | streamed for | edits | allowance | longest gap between edits |',
      '|---|---|---|---|---|',
      ...streamRows.map((r, i) => `| ${i + 1} | ${r.seconds.toFixed(1)} s | ${r.edits} | ${r.allowance} | ${r.maxGap} ms |`),
      '',
      `Load average when done: ${loadavg().map((l) => l.toFixed(1)).join(' / ')} (other work on the machine shows up in the tail).`,
      `429 answers from the fake Discord over the whole run: ${fake.rateLimitedCount}` +
        (fake.rateLimitedCount > 0 ? ` (${fake.rateLimitHits.map((hit) => `${hit.method} ${hit.route}${hit.global ? ', global' : ''}`).join('; ')}).` : '.'),
    ];
    return { markdown: lines.join('\n') };
  } finally {
    await rig.bot.stop();
    await rig.core.close();
    await fake.close();
    await rig.proxy.close();
    await rig.emu.close();
  }
}
