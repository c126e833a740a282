import { describe, expect, it } from 'vitest';
import { runCluster, THREE_INSTANCES } from '../../bench/load/cluster.ts';
import { clusterTable } from '../../bench/load/cluster-report.ts';
import { redisDbUrl } from '../../bench/load/redis-db.ts';
import { reachable, redisUrl } from '../store/backends.ts';

const redisUp = await reachable(redisUrl);
// A database of its own, emptied at the start: the other files share database 0 under keys of their own.
const OWN_DB = 9;

describe.skipIf(!redisUp)(`three instances on one Redis (${redisUrl}, database 9)`, () => {
  it('three Herald processes on one Redis answer 300 conversations once each, remember across instances, and finish the replies of a killed one', {
    timeout: 180_000,
  }, async () => {
    const r = await runCluster({
      instances: THREE_INSTANCES,
      storeUrl: redisDbUrl(redisUrl, OWN_DB),
      discord: 150,
      slack: 150,
      words: 12,
      tokensPerSecond: 10,
      rampMs: 5000,
      // The takeover of C's replies waits out its conversation locks (15 s) before the second turn can be asked.
      timeoutMs: 75_000,
      retryScale: 0.01,
      killSlack: { instance: 'C', afterMs: 4000 },
      shardOutage: { instance: 'B', everyMs: 200, answerTimeoutMs: 8000 },
    });
    const table = clusterTable([r]);
    console.info(table);
    expect(r.undelivered, table).toBe(0);
    expect(r.lost, table).toEqual({ discord: 0, slack: 0 });
    expect(r.duplicates, table).toBe(0);
    expect(r.stuck, table).toBe(0);
    expect(r.fake429s, table).toEqual({});
    expect(r.remembered, table).toBe(r.dialogues);
    // Round robin hands about half the second turns to another instance than the first (more before C dies).
    expect(r.acrossInstances, table).toBeGreaterThan(r.dialogues / 4);
    // Deliveries to the dead instance got a 502 from the balancer; Slack's retries reached the others.
    expect(r.retries.http_error, table).toBeGreaterThan(0);
    expect(r.slackKill?.inProgress, table).toBeGreaterThan(0);
    expect(r.slackKill?.finished, table).toBe(r.slackKill?.inProgress);
    // What a killed shard loses is measured, not held to a goal; once the replacement holds it, nothing is lost.
    expect(r.shardOutage?.gapMs, table).toBeDefined();
    expect(r.shardOutage?.probes.after.lost, table).toBe(0);
  });
});
