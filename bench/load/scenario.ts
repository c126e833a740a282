import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeDiscord, type FakeDiscord } from '../../test/fakes/discord/index.ts';
import { startEmulator } from '../../test/fakes/service/emulator.ts';
import { startFakeSlack, type FakeSlack } from '../../test/fakes/slack/index.ts';
import { longAnswer, type Conversation } from './conversation.ts';
import { discordConversations } from './discord-load.ts';
import { unthrottledHeraldEnv, startHerald, type HeraldPeers, type HeraldProcess } from './herald-process.ts';
import { machineShare, machineSnapshot, type MachineShare } from './machine.ts';
import { MetricsSampler, type Sampled } from './sampler.ts';
import { slackConversations } from './slack-load.ts';

export interface ScenarioOptions {
  discord: number;
  slack: number;
  store: 'memory' | 'sqlite';
  /** The prompts are sent evenly over this long (0: all at once), the platforms taking turns. */
  rampMs: number;
  /** Words per answer (`long N`). */
  words: number;
  tokensPerSecond: number;
  /** A reply not complete this long after its prompt was sent counts as lost. */
  timeoutMs: number;
  /** Herald's scheduling priority (see startHerald); undefined leaves it as is. */
  priority?: number;
  /** Write a V8 CPU profile of Herald into this directory. */
  cpuProfileDir?: string;
}

export type Platform = Conversation['platform'];

export interface ScenarioResult {
  options: ScenarioOptions;
  conversations: number;
  complete: number;
  /** Prompts the platform fake could not deliver to Herald. */
  undelivered: number;
  /** Seconds from each prompt until its reply was complete, sorted, by platform (complete replies only). */
  replySeconds: Record<Platform, number[]>;
  /** From the first prompt until the last reply was complete (or the last prompt's timeout). */
  durationMs: number;
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

interface Fakes extends HeraldPeers {
  slack: FakeSlack | undefined;
}

export async function runScenario(options: ScenarioOptions): Promise<ScenarioResult> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-load-'));
  const closers: Array<() => Promise<unknown>> = [];
  try {
    const emulator = await startEmulator({ pace: { tokensPerSecond: options.tokensPerSecond } });
    closers.unshift(() => emulator.close());
    const discord = await startFakeDiscord();
    closers.unshift(() => discord.close());
    const slack = options.slack > 0 ? await startFakeSlack() : undefined;
    if (slack) closers.unshift(() => slack.close());
    const fakes: Fakes = { emulator, discord, slack };
    const { prompt, text } = longAnswer(options.words);
    const conversations = takeTurns(
      discordConversations(discord, options.discord, prompt, text),
      slack ? slackConversations(slack, options.slack, prompt, text) : [],
    );
    const herald = await startHerald({
      cwd: dir,
      env: unthrottledHeraldEnv(fakes, options.store === 'memory' ? 'memory://' : `sqlite://${join(dir, 'herald.sqlite')}`),
      ...(options.cpuProfileDir && { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] }),
      ...(options.priority !== undefined && { priority: options.priority }),
    });
    closers.unshift(() => herald.stop());
    slack?.setRequestUrl(`${herald.opsUrl}/slack/events`);
    return await measure(options, conversations, fakes, herald);
  } finally {
    for (const close of closers) await close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(options: ScenarioOptions, conversations: Conversation[], fakes: Fakes, herald: HeraldProcess): Promise<ScenarioResult> {
  const sampler = new MetricsSampler(herald.opsUrl, herald.pid, SCRAPE_INTERVAL_MS);
  await sampler.start();
  const before = machineSnapshot(herald.pid);
  const benchLag = monitorEventLoopDelay({ resolution: 10 });
  benchLag.enable();
  const { sentAt, doneAt, durationMs, undelivered } = await converse(conversations, options.rampMs, options.timeoutMs);
  benchLag.disable();
  const sampled = await sampler.stop();
  const machine = machineShare(before, machineSnapshot(herald.pid), sampled.cpuSeconds);
  const replySeconds = (platform: Platform) =>
    [...doneAt]
      .filter(([c]) => c.platform === platform)
      .map(([c, at]) => (at - sentAt.get(c)!) / 1000)
      .sort((a, b) => a - b);
  return {
    options,
    conversations: conversations.length,
    complete: doneAt.size,
    undelivered,
    replySeconds: { discord: replySeconds('discord'), slack: replySeconds('slack') },
    durationMs,
    herald: sampled,
    fake429s: served429s(fakes.discord, fakes.slack),
    warnings: herald.logs.length,
    benchLagP99Ms: benchLag.percentile(99) / 1e6,
    machine,
    priority: herald.priority,
    exitCode: await herald.stop(),
  };
}

/** When each prompt went and each reply was complete, over a run of conversations. */
interface Conversed {
  sentAt: Map<Conversation, number>;
  doneAt: Map<Conversation, number>;
  /** From the first prompt until the last reply was complete (or the last prompt's timeout). */
  durationMs: number;
  /** Prompts that could not be delivered. */
  undelivered: number;
}

/** Sends the prompts spread over `rampMs` and waits until each reply is complete or `timeoutMs` after its prompt. */
export async function converse(conversations: Conversation[], rampMs: number, timeoutMs: number): Promise<Conversed> {
  const started = performance.now();
  const sentAt = new Map<Conversation, number>();
  const sending = sendSpread(conversations, rampMs, sentAt);
  const doneAt = new Map<Conversation, number>();
  const waiting = () => conversations.filter((c) => !doneAt.has(c) && (!sentAt.has(c) || performance.now() - sentAt.get(c)! < timeoutMs));
  for (let open = waiting(); open.length > 0; open = waiting()) {
    await sleep(POLL_MS);
    for (const c of open) if (sentAt.has(c) && c.complete()) doneAt.set(c, performance.now());
  }
  const durationMs = (doneAt.size === conversations.length ? Math.max(...doneAt.values()) : performance.now()) - started;
  return { sentAt, doneAt, durationMs, undelivered: await sending };
}

/** 429s the fakes served, by platform and route. */
export function served429s(discord: FakeDiscord, slack: FakeSlack | undefined): Record<string, number> {
  return countBy([
    ...discord.rateLimitHits.map((h) => `Discord ${h.method} ${h.global ? 'global' : h.route}`),
    ...(slack?.rateLimited ?? []).map((h) => `Slack ${h.method}`),
  ]);
}

/** Discord, Slack, Discord, Slack, … then the rest of the longer list. */
export function takeTurns(a: Conversation[], b: Conversation[]): Conversation[] {
  return Array.from({ length: Math.max(a.length, b.length) }, (_, i) => [a[i], b[i]])
    .flat()
    .filter((c) => c !== undefined);
}

/**
 * Sends the prompts evenly spread over `rampMs`, each on time even if an earlier one is still being sent, noting
 * when each went; resolves with the number that could not be delivered.
 */
async function sendSpread(conversations: Conversation[], rampMs: number, sentAt: Map<Conversation, number>): Promise<number> {
  const spacing = conversations.length > 1 ? rampMs / (conversations.length - 1) : 0;
  const started = performance.now();
  const sending: Array<Promise<void>> = [];
  for (const [i, conversation] of conversations.entries()) {
    const wait = started + i * spacing - performance.now();
    if (wait > 0) await sleep(wait);
    sentAt.set(conversation, performance.now());
    sending.push(Promise.resolve().then(() => conversation.send()));
  }
  const sent = await Promise.allSettled(sending);
  return sent.filter((s) => s.status === 'rejected').length;
}

export function countBy(keys: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const key of keys) counts[key] = (counts[key] ?? 0) + 1;
  return counts;
}
