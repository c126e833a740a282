import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerCommands } from '../adapters/discord/index.ts';
import { loadConfig } from '../src/config/config.ts';
import { startFakeDiscord, type FakeDiscord, type InteractionRecord, type RestRequestRecord } from '../test/fakes/discord/index.ts';
import { startEmulator, type Emulator } from '../test/fakes/service/emulator.ts';
import { startHerald, type HeraldProcess } from './load/herald-process.ts';
import { parsePromText, total } from './load/prom-text.ts';

const MESSAGES = 1000;
const RUNS = 3;
const UNLIMITED = '1000000000';
/** A reply is over when Herald has made no request for this long after its last message showed. */
const QUIET_MS = 300;
const TIMEOUT_MS = 60_000;
const CPU_GOAL_MS = 300;
const OTHER_CALLS_GOAL = 3;

interface World {
  fake: FakeDiscord;
  emu: Emulator;
  herald: HeraldProcess;
}

interface Measured {
  cpuMs: number;
  /** Herald's REST calls by method and route, in the order first made. */
  calls: Map<string, number>;
  /** Requests Herald made to the service (a long range is summarized in parts, then combined). */
  serviceRequests: number;
}

async function cpuSeconds(herald: HeraldProcess): Promise<number> {
  const response = await fetch(`${herald.opsUrl}/metrics`);
  return total(parsePromText(await response.text()), 'herald_process_cpu_seconds_total');
}

/** Resolves once Herald has gone quiet after `done` holds: no REST call for QUIET_MS. */
async function settled(fake: FakeDiscord, done: () => boolean): Promise<void> {
  await fake.waitFor(done, { timeoutMs: TIMEOUT_MS, description: 'the reply' });
  for (;;) {
    const count = fake.requests.length;
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    if (fake.requests.length === count) return;
  }
}

/** Runs one command as alice, measuring Herald's CPU (its own process.cpuUsage, from /metrics) and the calls it made. */
async function measure(world: World, invoke: () => InteractionRecord, done: (r: InteractionRecord) => boolean): Promise<Measured> {
  const { fake, emu, herald } = world;
  const cpuBefore = await cpuSeconds(herald);
  const firstRequest = fake.requests.length;
  const firstServiceRequest = emu.requests.length;
  const record = invoke();
  await settled(fake, () => done(fake.interaction(record.id)!));
  const cpuMs = ((await cpuSeconds(herald)) - cpuBefore) * 1000;
  const calls = new Map<string, number>();
  for (const request of fake.requests.slice(firstRequest) as RestRequestRecord[]) {
    const kind = `${request.method} ${request.route ?? request.path}`;
    calls.set(kind, (calls.get(kind) ?? 0) + 1);
  }
  return { cpuMs, calls, serviceRequests: emu.requests.length - firstServiceRequest };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function hasSources(fake: FakeDiscord, record: InteractionRecord): boolean {
  const ids = [record.originalMessageId, ...record.followupIds].filter((id): id is string => id !== null);
  return ids.some((id) => fake.message(id)?.embeds.some((e) => e.title === 'Sources'));
}

/**
 * `/summarize count:1000` on a channel of 1,000 messages, Herald in a process of its own (as in production), the fake
 * Discord and the service emulator in the bench process: Herald's CPU for the whole summary (the service's and Discord's
 * latency excluded: CPU time only), and every Discord call it made, beside a one-line `/ask` in the same run.
 */
export async function run(): Promise<{ markdown: string }> {
  const emu = await startEmulator();
  const fake = await startFakeDiscord({ heartbeatIntervalMs: 5000 });
  const dir = mkdtempSync(join(tmpdir(), 'herald-summarize-bench-'));
  const channels = Array.from({ length: RUNS + 1 }, (_, i) => fake.addChannel({ name: `busy-${i}` }).id);
  const authors = [fake.users.alice.id, fake.users.bob.id, fake.users.owner.id];
  for (const channelId of channels) {
    for (let i = 1; i <= MESSAGES; i += 1) {
      fake.sendMessage({
        channelId,
        authorId: authors[i % 3]!,
        content: `update ${i}: the launch checklist item ${i} is done; next up is item ${i + 1}`,
      });
    }
  }
  const env = {
    PATH: process.env.PATH ?? '',
    API_BASE_URL: emu.url,
    API_KEY: emu.apiKey,
    DISCORD_TOKEN: fake.token,
    DISCORD_API_URL: fake.restUrl,
    STORE_URL: 'memory://',
    PORT: '0',
    LOG_LEVEL: 'info',
    THINKING: 'off',
    WEB_SEARCH: 'off',
    QUOTA_USER_PER_MINUTE: UNLIMITED,
    QUOTA_GUILD_PER_MINUTE: UNLIMITED,
    QUOTA_USER_DAILY_TOKENS: UNLIMITED,
    QUOTA_GUILD_DAILY_TOKENS: UNLIMITED,
  };
  await registerCommands(loadConfig(env, { envFile: '/nonexistent/.env' }));
  const herald = await startHerald({ env, cwd: dir });
  try {
    await fake.waitFor(() => fake.dispatched('GUILD_CREATE').length > 0, { timeoutMs: TIMEOUT_MS, description: 'Herald on the gateway' });
    const ask = () => fake.invokeCommand({ name: 'ask', options: { question: 'hello' } });
    const asked = (r: InteractionRecord) => r.originalMessageId !== null && /^Echo: .*hello$/.test(fake.message(r.originalMessageId)?.content ?? '');
    const summarize = (channelId: string) => () => fake.invokeCommand({ name: 'summarize', channelId, options: { count: MESSAGES } });
    const summarized = (r: InteractionRecord) => hasSources(fake, r);
    // Warm-up: the first command of each kind loads and compiles its code.
    const world = { fake, emu, herald };
    await measure(world, ask, asked);
    await measure(world, summarize(channels[RUNS]!), summarized);
    const reference: Measured[] = [];
    const summaries: Measured[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      reference.push(await measure(world, ask, asked));
      summaries.push(await measure(world, summarize(channels[i]!), summarized));
    }
    return { markdown: report(reference, summaries) };
  } finally {
    await herald.stop();
    await fake.close();
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(reference: Measured[], summaries: Measured[]): string {
  const cpu = median(summaries.map((m) => m.cpuMs));
  const calls = summaries[0]!.calls;
  const pages = calls.get('GET /channels/:channel_id/messages') ?? 0;
  const others = [...calls.values()].reduce((sum, n) => sum + n, 0) - pages;
  const rows = [...new Set([...calls.keys(), ...reference[0]!.calls.keys()])].map(
    (kind) => `| ${kind} | ${calls.get(kind) ?? 0} | ${reference[0]!.calls.get(kind) ?? 0} |`,
  );
  return [
    '## Summaries: 1,000 messages',
    '',
    `\`/summarize count:${MESSAGES}\` on a Discord channel of ${MESSAGES} messages, Herald in a process of its own, the fake Discord ` +
      'and the service emulator in the bench process (no pacing). CPU is the change of Herald’s `herald_process_cpu_seconds_total` ' +
      '(process.cpuUsage) over the command, so the platform’s and the service’s latency are not in it. The reference is `/ask hello` ' +
      `in the same run. Median of ${RUNS} runs, each on a channel not read before (no cached history), after one warm-up of each.`,
    '',
    '| | /summarize (1,000 messages) | /ask hello (reference) |',
    '|---|---|---|',
    `| Herald CPU, median | ${cpu.toFixed(0)} ms | ${median(reference.map((m) => m.cpuMs)).toFixed(0)} ms |`,
    `| Herald CPU, each run | ${summaries.map((m) => m.cpuMs.toFixed(0)).join(', ')} ms | ${reference.map((m) => m.cpuMs.toFixed(0)).join(', ')} ms |`,
    `| Service requests | ${summaries[0]!.serviceRequests} | ${reference[0]!.serviceRequests} |`,
    '',
    '',
    '| Discord call | /summarize | /ask hello |',
    '|---|---|---|',
    ...rows,
    '',
    `Goals: CPU ≤ ${CPU_GOAL_MS} ms — ${cpu <= CPU_GOAL_MS ? 'met' : 'missed'}; the 10 history pages plus at most ${OTHER_CALLS_GOAL} other ` +
      `calls — ${pages} pages and ${others} other calls, ${pages <= 10 && others <= OTHER_CALLS_GOAL ? 'met' : 'missed'}.`,
  ].join('\n');
}
