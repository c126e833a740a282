import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeDiscord, type FakeDiscord } from '../../test/fakes/discord/index.ts';
import { startEmulator } from '../../test/fakes/service/emulator.ts';
import { startFakeSlack, type FakeSlack } from '../../test/fakes/slack/index.ts';
import { longAnswer, type Conversation } from './conversation.ts';
import { discordConversations } from './discord-load.ts';
import { startHerald, unthrottledHeraldEnv, type HeraldProcess } from './herald-process.ts';
import { ownRedisDb } from './redis-db.ts';
import { startRoundRobinProxy, type RoundRobinProxy } from './round-robin-proxy.ts';
import { MetricsSampler, type Sampled } from './sampler.ts';
import { converse, countBy, served429s, takeTurns, type Platform } from './scenario.ts';
import { measureShardOutage, type ShardOutage } from './shard-outage.ts';
import { slackDialogues, type SlackDialogue, type Turn } from './slack-dialogue.ts';

/** One Herald process: Slack in HTTP mode behind the balancer or not, and the Discord shards it runs (none: no Discord). */
export interface InstanceSpec {
  name: string;
  slack: boolean;
  shards: number[];
}

/** A = Slack + Discord shard 0, B = Slack + Discord shard 1, C = Slack only. */
export const THREE_INSTANCES: InstanceSpec[] = [
  { name: 'A', slack: true, shards: [0] },
  { name: 'B', slack: true, shards: [1] },
  { name: 'C', slack: true, shards: [] },
];

/** Everything in one process, for comparison. */
export const ONE_INSTANCE: InstanceSpec[] = [{ name: 'A', slack: true, shards: [0, 1] }];

export interface ClusterOptions {
  instances: InstanceSpec[];
  /** A Redis URL naming a database the run owns (redis://host:port/N): it is emptied first. */
  storeUrl: string;
  discord: number;
  /** Two-turn Slack conversations. */
  slack: number;
  /** Words per first answer (`long N`). */
  words: number;
  tokensPerSecond: number;
  rampMs: number;
  /** A conversation not complete this long after its first prompt counts as lost. */
  timeoutMs: number;
  /** Multiplies Slack's retry schedule (1: a minute and five minutes before the last two retries). */
  retryScale: number;
  /** SIGKILL this Slack instance this long after the first prompt. */
  killSlack?: { instance: string; afterMs: number };
  /**
   * Once the load is over: SIGKILL the process of Discord shard 1, start a replacement, ask a question every
   * `everyMs` meanwhile, and count those not answered `answerTimeoutMs` after the last.
   */
  shardOutage?: { instance: string; everyMs: number; answerTimeoutMs: number };
}

export interface InstanceResult {
  name: string;
  herald: Sampled;
  /** Warnings and errors it logged. */
  warnings: number;
  killed: boolean;
}

/** The replies the killed Slack instance had taken and not finished, and what became of them. */
export interface SlackKill {
  inProgress: number;
  finished: number;
  /** Seconds from the kill until each of them was complete, sorted. */
  finishSeconds: number[];
}

export interface ClusterResult {
  options: ClusterOptions;
  conversations: number;
  /** Conversations not complete in time. */
  lost: Record<Platform, number>;
  /** Conversations whose prompt (or second prompt) never reached Herald, or whose second turn was never asked. */
  undelivered: number;
  duplicates: number;
  /** Herald's Slack messages still streaming at the end. */
  stuck: number;
  fake429s: Record<string, number>;
  dialogues: number;
  remembered: number;
  /** Dialogues whose two turns were taken by different instances. */
  acrossInstances: number;
  /** Slack's retries of event deliveries, by X-Slack-Retry-Reason. */
  retries: Record<string, number>;
  replies: number;
  /** Commands the Redis server ran during the load (INFO commandstats). */
  redisCommands: number;
  durationMs: number;
  instances: InstanceResult[];
  slackKill: SlackKill | undefined;
  shardOutage: ShardOutage | undefined;
}

const SHARD_COUNT = 2;
const SCRAPE_INTERVAL_MS = 2000;

interface Running {
  spec: InstanceSpec;
  process: HeraldProcess;
  sampler: MetricsSampler;
  herald?: Sampled;
  killed: boolean;
}

interface World {
  discord: FakeDiscord;
  slack: FakeSlack;
  proxy: RoundRobinProxy;
  instances: Running[];
  start(spec: InstanceSpec): Promise<HeraldProcess>;
}

/**
 * Several Herald processes on one Redis database, as in production: Slack in HTTP mode behind a round-robin
 * balancer over the Slack instances, Discord with SHARD_COUNT=2 split over the instances' SHARD_IDS. Discord
 * conversations are in DMs and in servers on both shards; Slack conversations are two turns each (the second
 * asked once the first answer is complete, so that round robin hands it to another instance).
 */
export async function runCluster(options: ClusterOptions): Promise<ClusterResult> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-cluster-'));
  const closers: Array<() => Promise<unknown>> = [];
  try {
    const redis = await ownRedisDb(options.storeUrl);
    closers.unshift(() => redis.close());
    const emulator = await startEmulator({ pace: { tokensPerSecond: options.tokensPerSecond } });
    closers.unshift(() => emulator.close());
    const discord = await startFakeDiscord({ shardCount: SHARD_COUNT, maxConcurrency: SHARD_COUNT });
    closers.unshift(() => discord.close());
    const slack = await startFakeSlack({ eventRetries: { scale: options.retryScale } });
    closers.unshift(() => slack.close());
    const guilds = [0, 1].map((shard) => discord.addGuild({ name: `shard ${shard}`, shard: [shard, SHARD_COUNT] }).id);
    const { prompt, text } = longAnswer(options.words);
    const dialogues = slackDialogues(slack, options.slack, prompt, text, options.timeoutMs);
    const conversations = takeTurns(discordConversations(discord, options.discord, prompt, text, guilds), dialogues);

    const base = unthrottledHeraldEnv({ emulator, discord, slack }, options.storeUrl);
    const start = (spec: InstanceSpec) => startHerald({ cwd: dir, env: instanceEnv(base, spec) });
    const started = await Promise.allSettled(options.instances.map(start));
    const processes = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    closers.unshift(() => Promise.all(processes.map((p) => p.stop())));
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    const instances = options.instances.map(
      (spec, i): Running => ({
        spec,
        process: processes[i]!,
        sampler: new MetricsSampler(processes[i]!.opsUrl, processes[i]!.pid, SCRAPE_INTERVAL_MS),
        killed: false,
      }),
    );
    const proxy = await startRoundRobinProxy(instances.filter((r) => r.spec.slack).map((r) => r.process.opsUrl));
    closers.unshift(() => proxy.close());
    slack.setRequestUrl(`${proxy.url}/slack/events`);
    const world: World = { discord, slack, proxy, instances, start };

    const commandsBefore = await redis.commandsSoFar();
    const load = await measureLoad(options, conversations, dialogues, world);
    const redisCommands = (await redis.commandsSoFar()) - commandsBefore;
    const outage = options.shardOutage;
    const shardOutage = outage && (await outageOf(world, outage, closers));
    const turnsDone = dialogues.flatMap((d) => d.turns).filter((t) => t.doneAt !== undefined).length;
    const replies = load.completeDiscord + turnsDone;
    return {
      options,
      conversations: conversations.length,
      lost: { discord: options.discord - load.completeDiscord, slack: dialogues.filter((d) => d.turns[1].doneAt === undefined).length },
      undelivered: load.undelivered,
      duplicates: conversations.reduce((sum, c) => sum + c.extraReplies(), 0),
      stuck: slack.botMessages().filter((m) => m.stream?.state === 'streaming').length,
      fake429s: served429s(discord, slack),
      dialogues: dialogues.length,
      remembered: dialogues.filter((d) => d.remembered()).length,
      acrossInstances: dialogues.filter(
        ({ turns: [first, second] }) => first.servedBy !== undefined && second.servedBy !== undefined && first.servedBy !== second.servedBy,
      ).length,
      retries: countBy(slack.httpDeliveries.flatMap((d) => d.headers['x-slack-retry-reason'] ?? [])),
      replies,
      redisCommands,
      durationMs: load.durationMs,
      instances: instances.map((r) => ({ name: r.spec.name, herald: r.herald!, warnings: r.process.logs.length, killed: r.killed })),
      slackKill: load.slackKill,
      shardOutage,
    };
  } finally {
    for (const close of closers) await close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Herald's environment for one instance: only its platforms, and its share of the Discord shards. */
function instanceEnv(base: Record<string, string>, spec: InstanceSpec): Record<string, string> {
  const env = { ...base };
  if (spec.shards.length > 0) Object.assign(env, { SHARD_COUNT: String(SHARD_COUNT), SHARD_IDS: spec.shards.join(',') });
  else for (const name of ['DISCORD_TOKEN', 'DISCORD_API_URL']) delete env[name];
  if (!spec.slack) for (const name of ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'SLACK_API_URL']) delete env[name];
  return env;
}

interface Load {
  completeDiscord: number;
  undelivered: number;
  durationMs: number;
  slackKill: SlackKill | undefined;
}

async function measureLoad(options: ClusterOptions, conversations: Conversation[], dialogues: SlackDialogue[], world: World): Promise<Load> {
  for (const r of world.instances) await r.sampler.start();
  const kill = options.killSlack;
  const killing = kill && killSlackInstance(world, kill.instance, kill.afterMs, dialogues);
  const { doneAt, durationMs, undelivered } = await converse(conversations, options.rampMs, options.timeoutMs);
  const killed = await killing;
  for (const r of world.instances) if (!r.killed) r.herald = await r.sampler.stop();
  return {
    completeDiscord: [...doneAt.keys()].filter((c) => c.platform === 'discord').length,
    undelivered,
    durationMs,
    slackKill: killed && slackKillOutcome(killed.turns, killed.at),
  };
}

/** SIGKILLs the instance `afterMs` into the load; returns the turns it had taken and not finished, and when. */
async function killSlackInstance(world: World, name: string, afterMs: number, dialogues: SlackDialogue[]): Promise<{ turns: Turn[]; at: number }> {
  await sleep(afterMs);
  const victim = instanceNamed(world, name);
  const upstream = String(world.instances.filter((r) => r.spec.slack).indexOf(victim));
  victim.herald = await victim.sampler.stop();
  const at = performance.now();
  await victim.process.kill();
  victim.killed = true;
  const turns = dialogues.flatMap((d) => d.turns).filter((t) => t.servedBy === upstream && t.doneAt === undefined);
  return { turns, at };
}

/** Read once the load is over: which of the dead instance's replies another instance finished, and how soon. */
function slackKillOutcome(turns: Turn[], at: number): SlackKill {
  const finishSeconds = turns
    .filter((t) => t.doneAt !== undefined)
    .map((t) => (t.doneAt! - at) / 1000)
    .sort((a, b) => a - b);
  return { inProgress: turns.length, finished: finishSeconds.length, finishSeconds };
}

/** Kills the instance running Discord shard 1 and starts a replacement in its place, behind the balancer too. */
async function outageOf(
  world: World,
  { instance, everyMs, answerTimeoutMs }: NonNullable<ClusterOptions['shardOutage']>,
  closers: Array<() => Promise<unknown>>,
): Promise<ShardOutage> {
  const victim = instanceNamed(world, instance);
  const upstream = world.instances.filter((r) => r.spec.slack).indexOf(victim);
  return measureShardOutage({
    fake: world.discord,
    shard: [1, SHARD_COUNT],
    everyMs,
    answerTimeoutMs,
    kill: () => victim.process.kill(),
    replace: async () => {
      const replacement = await world.start(victim.spec);
      closers.unshift(() => replacement.stop());
      if (upstream >= 0) world.proxy.upstreams[upstream] = replacement.opsUrl;
    },
  });
}

function instanceNamed(world: World, name: string): Running {
  const found = world.instances.find((r) => r.spec.name === name);
  if (!found) throw new Error(`no instance named ${name}`);
  return found;
}
