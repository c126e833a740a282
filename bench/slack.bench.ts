/**
 * Slack reply latency: the time from the service writing an answer's first token to Herald's first Slack Web API
 * call for it (chat.startStream in a thread, chat.postMessage at a DM's top level), through the real core and the
 * real Bolt app in HTTP mode. The call is timed when Herald issues it (the Web API client's fetch) and when Slack
 * receives it. The fake Slack and the service stand-in run in a worker thread (bench/slack-bench-peers.ts) so
 * their work is not counted as Herald's. Slack's rate tiers are lifted on both sides: the number is Herald's own
 * work, not a wait for the budget. Goal: p99 ≤ 20 ms.
 */
import { Worker } from 'node:worker_threads';
import { pino } from 'pino';
import { startSlack } from '../adapters/slack/start-slack.ts';
import { loadConfig } from '../src/config/config.ts';
import { createCore } from '../src/core.ts';
import type { PeerMessage, PeerRequest } from './slack-bench-peers.ts';
import { percentile } from './stats.ts';

const SEQUENTIAL = 300;
const CONCURRENT_ROUNDS = 20;
const CONCURRENCY = 10;
const WARMUP = 30;
const KEY = 'bench-key-0123456789';

type Request = PeerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

interface Timing {
  /** First token written → Herald issues the first call. */
  issued: number;
  /** First token written → Slack receives it. */
  received: number;
  /** The core's first text event → the call issued: the adapter's own share. */
  adapter: number;
}

/** Wall-clock milliseconds with sub-millisecond precision, comparable with the worker's. */
const now = () => performance.timeOrigin + performance.now();

export async function run(): Promise<{ markdown: string }> {
  const worker = new Worker(new URL('./slack-bench-peers.ts', import.meta.url));
  const pending = new Map<number, () => void>();
  const tokenAt = new Map<string, number>();
  const callAt = new Map<string, number>();
  const arrivals = new Map<string, () => void>();
  let ready!: (message: Extract<PeerMessage, { type: 'ready' }>) => void;
  const started = new Promise<Extract<PeerMessage, { type: 'ready' }>>((resolve) => (ready = resolve));
  worker.on('message', (message: PeerMessage) => {
    if (message.type === 'ready') ready(message);
    else if (message.type === 'done') pending.get(message.id)?.();
    else {
      (message.type === 'token' ? tokenAt : callAt).set(message.tag, message.at);
      if (tokenAt.has(message.tag) && callAt.has(message.tag)) arrivals.get(message.tag)?.();
    }
  });
  let nextId = 0;
  const request = (message: Request) =>
    new Promise<void>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      worker.postMessage({ ...message, id } as PeerRequest);
    });

  const peers = await started;
  const logger = pino({ level: 'silent' });
  const config = loadConfig(
    {
      API_BASE_URL: peers.serviceUrl,
      API_KEY: KEY,
      STORE_URL: 'memory://',
      PORT: '0',
      WEB_SEARCH: 'off',
      THINKING: 'off',
      QUOTA_USER_PER_MINUTE: '1000000',
      QUOTA_GUILD_PER_MINUTE: '1000000',
      QUOTA_USER_DAILY_TOKENS: '1000000000',
      QUOTA_GUILD_DAILY_TOKENS: '1000000000',
      SLACK_BOT_TOKEN: peers.botToken,
      SLACK_SIGNING_SECRET: peers.signingSecret,
      SLACK_API_URL: peers.apiUrl,
    },
    { envFile: '/nonexistent/.env' },
  );
  const core = await createCore(config, logger);
  // Timing hooks, set before startSlack builds its Web API client: when Herald issues each reply's first call,
  // and when the core hands the adapter its first text.
  const issuedAt: number[] = [];
  const textAt = new Map<string, number>();
  const realFetch = globalThis.fetch;
  globalThis.fetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    if (/chat\.(startStream|postMessage)$/.test(String(input))) issuedAt.push(now());
    return realFetch(input, init);
  }) as typeof fetch;
  const handle = core.engine.handle.bind(core.engine);
  core.engine.handle = (message, options) => {
    const tag = /bench-\d+/.exec(message.text)?.[0] ?? '';
    const stream = handle(message, options);
    return (async function* () {
      for await (const event of stream) {
        if (event.type === 'text' && !textAt.has(tag)) textAt.set(tag, now());
        yield event;
      }
    })();
  };
  const unlimited = { burst: 1e9, perSecond: 1e9 };
  const slack = await startSlack({ core, logger, tuning: { host: '127.0.0.1', methodLimits: {}, postMessagePerChannel: unlimited } });
  await request({ type: 'requestUrl', url: `http://127.0.0.1:${slack.port}/slack/events` });

  let n = 0;
  /** One question; resolves with its timings once its first token and first Slack call are both noted. */
  const ask = async (where: 'thread' | 'dm'): Promise<Timing> => {
    const tag = `bench-${n++}`;
    const arrived = new Promise<void>((resolve) => arrivals.set(tag, resolve));
    await request({ type: 'ask', where, tag });
    await arrived;
    const token = tokenAt.get(tag)!;
    const text = textAt.get(tag)!;
    const issued = issuedAt.find((at) => at >= text)!;
    return { issued: issued - token, received: callAt.get(tag)! - token, adapter: issued - text };
  };

  const rows: string[] = [];
  try {
    for (let i = 0; i < WARMUP; i++) await ask('thread');
    await request({ type: 'settle' });
    for (const where of ['thread', 'dm'] as const) {
      const sequential: Timing[] = [];
      for (let i = 0; i < SEQUENTIAL; i++) sequential.push(await ask(where));
      await request({ type: 'settle' });
      const concurrent: Timing[] = [];
      for (let r = 0; r < CONCURRENT_ROUNDS; r++) concurrent.push(...(await Promise.all(Array.from({ length: CONCURRENCY }, () => ask(where)))));
      await request({ type: 'settle' });
      const label = where === 'thread' ? 'mention → chat.startStream (thread)' : 'DM → chat.postMessage (top level)';
      for (const [mode, values] of [
        ['one at a time', sequential],
        [`${CONCURRENCY} at once`, concurrent],
      ] as const) {
        const cells = (key: keyof Timing) =>
          [50, 95, 99]
            .map((p) =>
              percentile(
                values.map((v) => v[key]),
                p,
              ).toFixed(1),
            )
            .join(' / ');
        rows.push(`| ${label} | ${mode} | ${values.length} | ${cells('issued')} | ${cells('received')} | ${cells('adapter')} |`);
      }
    }
  } finally {
    globalThis.fetch = realFetch;
    await slack.stop();
    await core.close();
    await request({ type: 'close' });
    await worker.terminate();
  }
  const markdown = [
    '## Slack: first token to first Slack call',
    '',
    "Milliseconds (p50 / p95 / p99) from the service writing an answer's first token to Herald issuing the Web API call",
    'that shows it, and to Slack receiving that call; and, inside that, from the core handing the adapter its first text',
    'to the call being issued. Real core and real Bolt app (HTTP mode) in the main thread; fake Slack and the service',
    'stand-in in a worker thread; loopback. Replies are asked one after another (earlier ones still finishing), then',
    'ten at once. Goal: p99 ≤ 20 ms (first token → call issued).',
    '',
    '| reply | load | replies | first token → call issued | → call received by Slack | first text → call issued |',
    '|---|---|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
  return { markdown };
}
