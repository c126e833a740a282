import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeDiscord, type FakeDiscord } from '../test/fakes/discord/index.ts';
import { startEmulator, type Emulator } from '../test/fakes/service/emulator.ts';
import { startFakeSlack, type FakeSlack } from '../test/fakes/slack/index.ts';
import { startHerald } from './load/herald-process.ts';
import { median } from './stats.ts';

const RUNS = 3;
// Long enough for start-up's garbage to be collected and the allocator to settle (RSS is flat by then).
const SETTLE_MS = 4000;
const READY_POLL_MS = 10;
const READY_TIMEOUT_MS = 30_000;
const EAGER = join(import.meta.dirname, 'startup', 'eager-imports.ts');

interface Fakes {
  emulator: Emulator;
  discord: FakeDiscord;
  slack: FakeSlack;
}

interface Deployment {
  name: string;
  discord: boolean;
  slack: boolean;
}

const DEPLOYMENTS: Deployment[] = [
  { name: 'Discord only', discord: true, slack: false },
  { name: 'Slack only (HTTP)', discord: false, slack: true },
  { name: 'Discord + Slack (HTTP)', discord: true, slack: true },
];

type Variant = 'lazy' | 'eager';

interface Sample {
  readyMs: number;
  idleRss: number;
  peakRss: number;
}

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no ${field} for process ${pid}`);
  return Number(kb) * 1024;
}

/** Herald as in production (`herald` with no command, the default SQLite store in its working directory). */
function heraldEnv({ emulator, discord, slack }: Fakes, deployment: Deployment): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    API_BASE_URL: emulator.url,
    API_KEY: emulator.apiKey,
    ...(deployment.discord && { DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.restUrl }),
    ...(deployment.slack && { SLACK_BOT_TOKEN: slack.botToken, SLACK_SIGNING_SECRET: slack.signingSecret, SLACK_API_URL: slack.apiUrl }),
    PORT: '0',
  };
}

async function untilReady(opsUrl: string): Promise<void> {
  const deadline = performance.now() + READY_TIMEOUT_MS;
  while (performance.now() < deadline) {
    const status = await fetch(`${opsUrl}/readyz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await sleep(READY_POLL_MS);
  }
  throw new Error('herald was not ready in time');
}

async function startOnce(fakes: Fakes, deployment: Deployment, variant: Variant): Promise<Sample> {
  const cwd = mkdtempSync(join(tmpdir(), 'herald-startup-'));
  const started = performance.now();
  const herald = await startHerald({ cwd, env: heraldEnv(fakes, deployment), nodeArgs: variant === 'eager' ? ['--import', EAGER] : [] });
  try {
    await untilReady(herald.opsUrl);
    const readyMs = performance.now() - started;
    await sleep(SETTLE_MS);
    return { readyMs, idleRss: statusKb(herald.pid, 'VmRSS'), peakRss: statusKb(herald.pid, 'VmHWM') };
  } finally {
    await herald.stop();
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** A bare `node -e` process that only waits: what any Node process costs. */
async function bareNodeRss(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], { stdio: 'ignore' });
  try {
    await sleep(SETTLE_MS);
    return statusKb(child.pid!, 'VmRSS');
  } finally {
    child.kill();
  }
}

const MiB = (bytes: number) => String(Math.round(bytes / 2 ** 20));
const range = (values: number[], show: (n: number) => string) =>
  `${show(median(values))} (${show(Math.min(...values))}–${show(Math.max(...values))})`;

/**
 * Time to ready and idle memory of Herald started as in production, for each platform set-up, as it is (packages
 * loaded once used) and with every lazily loaded package imported at start-up, side by side.
 */
export async function run(): Promise<{ markdown: string }> {
  const emulator = await startEmulator();
  const discord = await startFakeDiscord();
  const slack = await startFakeSlack();
  const fakes: Fakes = { emulator, discord, slack };
  const samples = new Map<string, Sample[]>();
  const bare: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      bare.push(await bareNodeRss());
      for (const deployment of DEPLOYMENTS) {
        for (const variant of ['lazy', 'eager'] as const) {
          process.stderr.write(`startup: ${deployment.name}, ${variant}, run ${i + 1} of ${RUNS} …\n`);
          const key = `${deployment.name}/${variant}`;
          samples.set(key, [...(samples.get(key) ?? []), await startOnce(fakes, deployment, variant)]);
        }
      }
    }
  } finally {
    await slack.close();
    await discord.close();
    await emulator.close();
  }
  const of = (deployment: Deployment, variant: Variant) => samples.get(`${deployment.name}/${variant}`)!;
  const cells = (pick: (d: Deployment) => string) => DEPLOYMENTS.map(pick).join(' | ');
  const lines = [
    '## Start-up: time to ready and idle memory',
    '',
    'Herald started as in production (`node adapters/cli/herald.ts`, configuration from the environment, the default SQLite ' +
      'store, LOG_LEVEL info) against the emulator and the Discord and Slack fakes, which run in the bench process. Ready is ' +
      "from spawning the process to the first 200 from /readyz; idle RSS is the kernel's VmRSS " +
      `${SETTLE_MS / 1000} s after that, peak RSS its VmHWM then. "Eager" is the same Herald with every package it loads only on ` +
      'use (discord.js, @discordjs/voice, @slack/bolt, sharp, heic-decode, @keyv/redis) imported at start-up ' +
      '(`node --import bench/startup/eager-imports.ts`), as all were before they were made lazy. ' +
      `Median of ${RUNS} runs each, taking turns, (min–max); MiB.`,
    '',
    `| | ${cells((d) => d.name)} |`,
    `|---|${DEPLOYMENTS.map(() => '---').join('|')}|`,
    `| idle RSS, packages loaded on use | ${cells((d) =>
      range(
        of(d, 'lazy').map((s) => s.idleRss),
        MiB,
      ),
    )} |`,
    `| idle RSS, eager | ${cells((d) =>
      range(
        of(d, 'eager').map((s) => s.idleRss),
        MiB,
      ),
    )} |`,
    `| idle RSS saved | ${cells((d) => MiB(median(of(d, 'eager').map((s) => s.idleRss)) - median(of(d, 'lazy').map((s) => s.idleRss))))} |`,
    `| peak RSS during start-up, on use / eager | ${cells((d) => `${MiB(median(of(d, 'lazy').map((s) => s.peakRss)))} / ${MiB(median(of(d, 'eager').map((s) => s.peakRss)))}`)} |`,
    `| time to ready, packages loaded on use (ms) | ${cells((d) =>
      range(
        of(d, 'lazy').map((s) => s.readyMs),
        (n) => n.toFixed(0),
      ),
    )} |`,
    `| time to ready, eager (ms) | ${cells((d) =>
      range(
        of(d, 'eager').map((s) => s.readyMs),
        (n) => n.toFixed(0),
      ),
    )} |`,
    '',
    `For reference, a bare \`node -e\` process that only waits: ${range(bare, MiB)} MiB RSS (Herald's own share is the rest).`,
  ];
  return { markdown: lines.join('\n') };
}
