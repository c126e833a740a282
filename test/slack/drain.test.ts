import { afterEach, beforeEach, expect, it } from 'vitest';
import { ShutdownCoordinator, type ShutdownResult } from '../../src/ops/shutdown.ts';
import { startPlatforms } from '../../src/platform/start-platforms.ts';
import { RedisStore } from '../../src/store/redis-store.ts';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/index.ts';
import { startEmulator } from '../fakes/service/emulator.ts';
import { reachable, redisUrl } from '../store/backends.ts';
import { silentLogger as logger } from '../helpers/logger.ts';
import { startHerald, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

const redisUp = await reachable(redisUrl);
const title =
  'a draining instance takes nothing new: an event goes to the other instance, a command hears it is restarting, the reply in progress closes with a note';

let fake: FakeSlack;
let emu: Emulator;
let stores: RedisStore[] = [];
let instances: HeraldOnSlack[] = [];

beforeEach(async () => {
  fake = await startFakeSlack();
  emu = await startEmulator({ pace: { tokensPerSecond: 40, ttsChunkIntervalMs: 0 } });
});

afterEach(async () => {
  for (const herald of instances.splice(0)) await herald.stop();
  for (const store of stores.splice(0)) await store.close();
  await fake.close();
  await emu.close();
});

it.skipIf(!redisUp)(
  redisUp ? `${title} (${redisUrl})` : `${title} — skipped: no redis-server at ${redisUrl} (set REDIS_URL)`,
  { timeout: 30_000 },
  async () => {
    stores = [await RedisStore.connect(redisUrl), await RedisStore.connect(redisUrl)];
    const coordinator = new ShutdownCoordinator({ logger, timeoutMs: 6000 });
    let a!: HeraldOnSlack;
    await startPlatforms(
      [
        async (hooks) => {
          a = await startHerald(fake, emu, {
            mode: 'http',
            store: stores[0],
            env: { STORE_URL: redisUrl },
            ...(hooks.shutdown && { shutdown: hooks.shutdown }),
          });
          return a.slack;
        },
      ],
      { shutdown: coordinator },
      coordinator,
    );
    const b = await startHerald(fake, emu, { mode: 'http', store: stores[1], env: { STORE_URL: redisUrl }, keepRequestUrl: true });
    instances = [a, b];

    const long = fake.events.appMention({ text: 'long 400' });
    await fake.deliverEvent(long);
    const inProgress = await fake.waitFor(() => fake.botMessages().find((m) => m.thread_ts === long.ts && m.stream?.state === 'streaming'));

    const stopped: Promise<ShutdownResult> = coordinator.shutdown('SIGTERM');
    const late = fake.events.appMention({ text: 'who answers?' });
    const refused = await fake.deliverEvent(late);
    expect(refused.status).toBeGreaterThanOrEqual(500);
    const command = await fake.sendSlashCommand({ command: '/ask', text: 'anyone there?' });
    expect(command.status).toBe(200);
    expect(JSON.parse(command.responseBody)).toMatchObject({ response_type: 'ephemeral', text: expect.stringMatching(/restarting/) });

    // Slack retries the refused delivery; behind one URL it reaches the other instance.
    fake.setRequestUrl(b.eventsUrl!);
    expect((await fake.redeliver(refused)).status).toBe(200);
    const answer = await fake.waitFor(() => fake.botMessages().find((m) => m.thread_ts === late.ts && m.stream?.state === 'stopped'), 10_000);
    expect(answer.text).toBe('Echo: [alice]: who answers?');

    await stopped;
    expect(inProgress.stream?.state).toBe('stopped');
    expect(inProgress.text).toMatch(/⚠️ The reply was cancelled\.$/);
    expect(fake.botMessages().filter((m) => m.thread_ts === late.ts)).toHaveLength(1);
    expect(emu.requests.filter((r) => JSON.stringify(r.body).includes('anyone there?'))).toEqual([]);
  },
);

it('Socket Mode closes its socket as the drain begins, while the reply in progress goes on and closes with a note', { timeout: 30_000 }, async () => {
  const coordinator = new ShutdownCoordinator({ logger, timeoutMs: 6000 });
  let herald!: HeraldOnSlack;
  await startPlatforms(
    [
      async (hooks) => {
        herald = await startHerald(fake, emu, { mode: 'socket', ...(hooks.shutdown && { shutdown: hooks.shutdown }) });
        return herald.slack;
      },
    ],
    { shutdown: coordinator },
    coordinator,
  );
  instances = [herald];
  await fake.waitFor(() => fake.socket.openConnections().length === 1);
  const long = fake.events.appMention({ text: 'long 400' });
  await fake.socket.deliverEvent(long);
  const inProgress = await fake.waitFor(() => fake.botMessages().find((m) => m.thread_ts === long.ts && m.stream?.state === 'streaming'));

  const stopped = coordinator.shutdown('SIGTERM');
  await fake.waitFor(() => fake.socket.openConnections().length === 0);
  expect(inProgress.stream?.state).toBe('streaming');
  await stopped;
  expect(inProgress.stream?.state).toBe('stopped');
  expect(inProgress.text).toMatch(/⚠️ The reply was cancelled\.$/);
});
