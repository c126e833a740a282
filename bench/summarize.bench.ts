import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerCommands } from '../adapters/discord/index.ts';
import { loadConfig } from '../src/config/config.ts';
import { startFakeDiscord, type FakeDiscord, type InteractionRecord, type RestRequestRecord } from '../test/fakes/discord/index.ts';
import { startEmulator, type Emulator } from '../test/fakes/service/emulator.ts';
import { unthrottledHeraldEnv, startHerald, type HeraldProcess } from './load/herald-process.ts';
import { parsePromText, total } from './load/prom-text.ts';
import { median } from './stats.ts';

const MESSAGES = 1000;
const RUNS = 3;
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

function hasSources(fake: FakeDiscord, record: InteractionRecord): boolean {
  const ids = [record.originalMessageId, ...record.followupIds].filter((id): id is string => id !== null);
  return ids.some((id) => fake.message(id)?.embeds.some((e) => e.title === 'Sources'));
}

/** A context small enough that 1,000 messages are summarized in parts, then combined. */
const SMALL_CONTEXT = '8000';

interface Session {
  reference: Measured[];
  summaries: Measured[];
}

/** Herald started with `env`, warmed up, then `/ask hello` and `/summarize` in turn, each summary on a channel of its own. */
async function session(fake: FakeDiscord, emu: Emulator, env: Record<string, string>, channels: string[], dir: string): Promise<Session> {
  const earlier = new Set(fake.dispatched().map((d) => d.sessionId));
  const herald = await startHerald({ env, cwd: dir });
  try {
    const joined = () => fake.dispatched('GUILD_CREATE').some((d) => !earlier.has(d.sessionId));
    await fake.waitFor(joined, { timeoutMs: TIMEOUT_MS, description: 'Herald on the gateway' });
    const world = { fake, emu, herald };
    const ask = () => fake.invokeCommand({ name: 'ask', options: { question: 'hello' } });
    const asked = (r: InteractionRecord) => r.originalMessageId !== null && /^Echo: .*hello$/.test(fake.message(r.originalMessageId)?.content ?? '');
    const summarize = (channelId: string) => () => fake.invokeCommand({ name: 'summarize', channelId, options: { count: MESSAGES } });
    const summarized = (r: InteractionRecord) => hasSources(fake, r);
    // Warm-up: the first command of each kind loads and compiles its code.
    await measure(world, ask, asked);
    await measure(world, summarize(channels[RUNS]!), summarized);
    const result: Session = { reference: [], summaries: [] };
    for (let i = 0; i < RUNS; i += 1) {
      result.reference.push(await measure(world, ask, asked));
      result.summaries.push(await measure(world, summarize(channels[i]!), summarized));
    }
    return result;
  } finally {
    await herald.stop();
  }
}

/**
 * `/summarize count:1000` on a channel of 1,000 messages, Herald in a process of its own (as in production), the fake
 * Discord and the service emulator in the bench process: Herald's CPU for the whole summary (the service's and Discord's
 * latency excluded: CPU time only), and every Discord call it made, beside a one-line `/ask` in the same run; once with
 * the default context (one request) and once with a small one (in parts).
 */
export async function run(): Promise<{ markdown: string }> {
  const emu = await startEmulator();
  const fake = await startFakeDiscord({ heartbeatIntervalMs: 5000 });
  const dir = mkdtempSync(join(tmpdir(), 'herald-summarize-bench-'));
  const channels = Array.from({ length: 2 * (RUNS + 1) }, (_, i) => fake.addChannel({ name: `busy-${i}` }).id);
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
  const env = unthrottledHeraldEnv({ emulator: emu, discord: fake }, 'memory://');
  try {
    await registerCommands(loadConfig(env, { envFile: '/nonexistent/.env' }));
    const whole = await session(fake, emu, env, channels.slice(0, RUNS + 1), dir);
    const parts = await session(fake, emu, { ...env, CONTEXT_TOKENS: SMALL_CONTEXT }, channels.slice(RUNS + 1), dir);
    return { markdown: report(whole, parts) };
  } finally {
    await fake.close();
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const cpuCells = (runs: Measured[]) => [`${median(runs.map((m) => m.cpuMs)).toFixed(0)} ms`, `${runs.map((m) => m.cpuMs.toFixed(0)).join(', ')} ms`];

function report(whole: Session, parts: Session): string {
  const reference = whole.reference;
  const cpu = Math.max(median(whole.summaries.map((m) => m.cpuMs)), median(parts.summaries.map((m) => m.cpuMs)));
  const columns = [whole.summaries[0]!, parts.summaries[0]!, reference[0]!];
  const calls = whole.summaries[0]!.calls;
  const pages = calls.get('GET /channels/:channel_id/messages') ?? 0;
  const others = Math.max(...[whole, parts].map((s) => [...s.summaries[0]!.calls.values()].reduce((sum, n) => sum + n, 0))) - pages;
  const kinds = [...new Set(columns.flatMap((m) => [...m.calls.keys()]))];
  const [wholeMedian, wholeRuns] = cpuCells(whole.summaries);
  const [partsMedian, partsRuns] = cpuCells(parts.summaries);
  const [askMedian, askRuns] = cpuCells(reference);
  return [
    '## Summaries: 1,000 messages',
    '',
    `\`/summarize count:${MESSAGES}\` on a Discord channel of ${MESSAGES} messages, Herald in a process of its own, the fake Discord ` +
      'and the service emulator in the bench process (no pacing). CPU is the change of Herald’s `herald_process_cpu_seconds_total` ' +
      '(process.cpuUsage) over the command, so the platform’s and the service’s latency are not in it. The reference is `/ask hello` ' +
      `in the same run. Median of ${RUNS} runs, each on a channel not read before (no cached history), after one warm-up of each; ` +
      `once with the default context (the 1,000 messages fit one request) and once with CONTEXT_TOKENS=${SMALL_CONTEXT}, where they ` +
      'are summarized in parts and the parts combined.',
    '',
    '| | /summarize, one request | /summarize, in parts | /ask hello (reference) |',
    '|---|---|---|---|',
    `| Herald CPU, median | ${wholeMedian} | ${partsMedian} | ${askMedian} |`,
    `| Herald CPU, each run | ${wholeRuns} | ${partsRuns} | ${askRuns} |`,
    `| Service requests | ${columns.map((m) => m.serviceRequests).join(' | ')} |`,
    ...kinds.map((kind) => `| Discord: ${kind} | ${columns.map((m) => m.calls.get(kind) ?? 0).join(' | ')} |`),
    '',
    `Goals: CPU ≤ ${CPU_GOAL_MS} ms — ${cpu <= CPU_GOAL_MS ? 'met' : 'missed'}; the 10 history pages plus at most ${OTHER_CALLS_GOAL} other ` +
      `calls — ${pages} pages and at most ${others} other calls, ${pages <= 10 && others <= OTHER_CALLS_GOAL ? 'met' : 'missed'}.`,
  ].join('\n');
}
