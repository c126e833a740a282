import { ONE_INSTANCE, runCluster, THREE_INSTANCES, type ClusterOptions, type ClusterResult } from './load/cluster.ts';
import { clusterTable } from './load/cluster-report.ts';
import { redisDbUrl } from './load/redis-db.ts';

const WORDS = 40;
const TOKENS_PER_SECOND = 20;
const RAMP_MS = 5000;
const TIMEOUT_MS = 90_000;
const KILL_AFTER_MS = 4000;
const PROBE_EVERY_MS = 200;
// Long enough for another instance to finish what the dead one was answering, once its locks expire.
const OUTAGE_ANSWER_TIMEOUT_MS = 45_000;
// A database of the server at REDIS_URL that the bench empties and owns.
const OWN_DB = 10;

/**
 * 300 conversations against three Herald processes sharing one Redis, beside one process with everything under
 * the same load; then the three again, with a Slack instance killed mid-load and the Discord shard-1 process
 * once the load is over.
 */
export async function run(): Promise<{ markdown: string }> {
  // As the tests: REDIS_URL, else a local server.
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const load: Omit<ClusterOptions, 'instances'> = {
    storeUrl: redisDbUrl(redisUrl, OWN_DB),
    discord: 150,
    slack: 150,
    words: WORDS,
    tokensPerSecond: TOKENS_PER_SECOND,
    rampMs: RAMP_MS,
    timeoutMs: TIMEOUT_MS,
    retryScale: 1,
  };
  const results: ClusterResult[] = [];
  process.stderr.write('scale: one instance …\n');
  results.push(await runCluster({ ...load, instances: ONE_INSTANCE }));
  process.stderr.write('scale: three instances …\n');
  results.push(await runCluster({ ...load, instances: THREE_INSTANCES }));
  process.stderr.write('scale: three instances, killing C mid-load and B after …\n');
  results.push(
    await runCluster({
      ...load,
      instances: THREE_INSTANCES,
      killSlack: { instance: 'C', afterMs: KILL_AFTER_MS },
      shardOutage: { instance: 'B', everyMs: PROBE_EVERY_MS, answerTimeoutMs: OUTAGE_ANSWER_TIMEOUT_MS },
    }),
  );
  const lines = [
    '## Scale: three instances on one Redis',
    '',
    `300 conversations: 150 on Discord (DMs, and @mentions in servers on both of SHARD_COUNT=2's shards) and 150 on Slack ` +
      '(DMs, and @mentions followed up in their thread), each Slack one two turns: a question the emulator answers with ' +
      `${WORDS} words at ${TOKENS_PER_SECOND} tokens/s, then \`recall\` once that answer is complete, whose answer must quote the ` +
      `question (history kept in Redis, wherever the turn lands). The first prompts go out evenly over ${RAMP_MS / 1000} s; a ` +
      `conversation not complete ${TIMEOUT_MS / 1000} s after its first prompt is lost.`,
    '',
    'Each Herald runs as in production in a process of its own, on one Redis database (`STORE_URL=redis://…`). Slack is in HTTP ' +
      'mode behind a round-robin balancer over every Slack instance (a refused connection is a 502, and the upstream is passed ' +
      "over for 10 s, as nginx does by default); the fake retries failed deliveries on Slack's schedule (at once, after 1 min, " +
      'after 5 min). One instance runs everything; three run A = Slack + shard 0, B = Slack + shard 1, C = Slack only, ' +
      `once undisturbed and once with kills: ${KILL_AFTER_MS / 1000} s into the load C is SIGKILLed: the replies it had taken and not finished must be finished by ` +
      'another instance. Once the load is over B is SIGKILLed and a replacement with the same SHARD_IDS started at once, while ' +
      `a user asks a question in a shard-1 server every ${PROBE_EVERY_MS} ms: Discord does not replay to a new session what the ` +
      'old one missed, so the questions asked in the gap are lost; those B was answering count as lost unless answered ' +
      `${OUTAGE_ANSWER_TIMEOUT_MS / 1000} s after the last question.`,
    '',
    clusterTable(results),
    '',
    'Event-loop lag is the worst 2-second window of `herald_nodejs_eventloop_lag_p99_seconds` per process (a killed one up to ' +
      'its kill). Redis commands are the server-wide count of `INFO commandstats` over the load, divided by the replies ' +
      'completed (a Slack conversation is two). The fakes and the emulator run in the bench process, on the same two cores.',
  ];
  return { markdown: lines.join('\n') };
}
