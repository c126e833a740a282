import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeDiscord } from '../../test/fakes/discord/index.ts';
import { startEmulator } from '../../test/fakes/service/emulator.ts';
import { startFakeSlack, type FakeSlack } from '../../test/fakes/slack/index.ts';
import { longAnswer, type Conversation } from './conversation.ts';
import { discordConversations } from './discord-load.ts';
import { startHerald } from './herald-process.ts';
import { machineShare, machineSnapshot, type MachineShare } from './machine.ts';
import { MetricsSampler, type Sampled } from './sampler.ts';
import { slackConversations } from './slack-load.ts';

export interface ScenarioOptions {
  discord: number;
  slack: number;
  store: 'memory' | 'sqlite';
  /** The prompts are sent evenly over this long (0: all at once). */
  rampMs: number;
  /** Words per answer (`long N`). */
  words: number;
  tokensPerSecond: number;
  /** Give up on replies not complete by then. */
  timeoutMs: number;
  /** Herald's scheduling priority (see startHerald); undefined leaves it as is. */
  priority?: number;
  /** Write a V8 CPU profile of Herald into this directory. */
  cpuProfileDir?: string;
}

export interface ScenarioResult {
  options: ScenarioOptions;
  conversations: number;
  complete: number;
  /** Prompts the platform fake could not deliver to Herald. */
  undelivered: number;
  /** Complete replies by platform. */
  completeBy: { discord: number; slack: number };
  /** From the prompts being sent until the last reply was complete (or the timeout). */
  durationMs: number;
  /** Seconds until each reply was complete, sorted. */
  replySeconds: number[];
  herald: Sampled;
  /** 429s the fakes served, by platform and route. */
  fake429s: Record<string, number>;
  /** Warnings and errors Herald logged. */
  warnings: number;
  /** The bench process's own event-loop p99 (fakes and emulator): a saturated load generator would distort the run. */
  benchLagP99Ms: number;
  machine: MachineShare;
  /** The priority Herald ran at, when raised. */
  priority: number | undefined;
  exitCode: number | null;
}

const SCRAPE_INTERVAL_MS = 2000;
const POLL_MS = 100;
const UNLIMITED = String(1_000_000_000);

export async function runScenario(options: ScenarioOptions): Promise<ScenarioResult> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-load-'));
  const emulator = await startEmulator({ pace: { tokensPerSecond: options.tokensPerSecond } });
  const discord = await startFakeDiscord();
  const slack: FakeSlack | undefined = options.slack > 0 ? await startFakeSlack() : undefined;
  const { prompt, text } = longAnswer(options.words);
  const conversations: Conversation[] = discordConversations(discord, options.discord, prompt, text);
  if (slack) conversations.push(...slackConversations(slack, options.slack, prompt, text));
  const herald = await startHerald({
    cwd: dir,
    ...(options.cpuProfileDir && { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] }),
    ...(options.priority !== undefined && { priority: options.priority }),
    env: {
      PATH: process.env.PATH ?? '',
      API_BASE_URL: emulator.url,
      API_KEY: emulator.apiKey,
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.restUrl,
      ...(slack && { SLACK_BOT_TOKEN: slack.botToken, SLACK_SIGNING_SECRET: slack.signingSecret, SLACK_API_URL: slack.apiUrl }),
      STORE_URL: options.store === 'memory' ? 'memory://' : `sqlite://${join(dir, 'herald.sqlite')}`,
      PORT: '0',
      LOG_LEVEL: 'info',
      THINKING: 'off',
      WEB_SEARCH: 'off',
      QUOTA_USER_PER_MINUTE: UNLIMITED,
      QUOTA_GUILD_PER_MINUTE: UNLIMITED,
      QUOTA_USER_DAILY_TOKENS: UNLIMITED,
      QUOTA_GUILD_DAILY_TOKENS: UNLIMITED,
    },
  });
  const benchLag = monitorEventLoopDelay({ resolution: 10 });
  try {
    slack?.setRequestUrl(`${herald.opsUrl}/slack/events`);
    const sampler = new MetricsSampler(herald.opsUrl, herald.pid, SCRAPE_INTERVAL_MS);
    await sampler.start();
    const before = machineSnapshot(herald.pid);
    benchLag.enable();
    const started = performance.now();
    const sent = sendSpread(conversations, options.rampMs);
    const doneAt = new Map<Conversation, number>();
    while (doneAt.size < conversations.length && performance.now() - started < options.timeoutMs) {
      await sleep(POLL_MS);
      for (const c of conversations) if (!doneAt.has(c) && c.complete()) doneAt.set(c, performance.now());
    }
    const durationMs = (doneAt.size === conversations.length ? Math.max(...doneAt.values()) : performance.now()) - started;
    const undelivered = await sent;
    benchLag.disable();
    const sampled = await sampler.stop();
    const machine = machineShare(before, machineSnapshot(herald.pid), sampled.cpuSeconds);
    return {
      options,
      conversations: conversations.length,
      complete: doneAt.size,
      undelivered,
      completeBy: {
        discord: [...doneAt.keys()].filter((c) => c.platform === 'discord').length,
        slack: [...doneAt.keys()].filter((c) => c.platform === 'slack').length,
      },
      durationMs,
      replySeconds: [...doneAt.values()].map((t) => (t - started) / 1000).sort((a, b) => a - b),
      herald: sampled,
      fake429s: countBy([
        ...discord.rateLimitHits.map((h) => `discord ${h.method} ${h.global ? 'global' : h.route}`),
        ...(slack?.rateLimited ?? []).map((h) => `slack ${h.method}`),
      ]),
      warnings: herald.logs.length,
      benchLagP99Ms: benchLag.percentile(99) / 1e6,
      machine,
      priority: herald.priority,
      exitCode: await herald.stop(),
    };
  } finally {
    await herald.stop();
    await discord.close();
    await slack?.close();
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Sends the prompts evenly spread over `rampMs`, each on time even if an earlier one is still being sent; resolves
 * with the number that could not be delivered.
 */
async function sendSpread(conversations: Conversation[], rampMs: number): Promise<number> {
  const spacing = conversations.length > 1 ? rampMs / (conversations.length - 1) : 0;
  const started = performance.now();
  const sending: Array<Promise<void>> = [];
  for (const [i, conversation] of conversations.entries()) {
    const wait = started + i * spacing - performance.now();
    if (wait > 0) await sleep(wait);
    sending.push(Promise.resolve().then(() => conversation.send()));
  }
  const sent = await Promise.allSettled(sending);
  return sent.filter((s) => s.status === 'rejected').length;
}

function countBy(keys: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const key of keys) counts[key] = (counts[key] ?? 0) + 1;
  return counts;
}
