/**
 * Herald's real Slack adapter (Bolt inside) and real core against the fake Slack and the service emulator:
 * HTTP mode on Bolt's own port, HTTP mode mounted on the ops server, or Socket Mode.
 */
import { loadConfig, type Env } from '../../src/config/config.ts';
import type { IncomingMessage } from '../../src/conversation/types.ts';
import { createCore, type Core } from '../../src/core.ts';
import { HealthRegistry } from '../../src/ops/health.ts';
import { createMetrics, type Metrics } from '../../src/ops/metrics.ts';
import { createOpsServer, type OpsServer } from '../../src/ops/ops-server.ts';
import type { PlatformHooks } from '../../src/platform/platform-hooks.ts';
import type { Store } from '../../src/store/store.ts';
import { startSlack, type RunningSlack, type SlackTuning } from '../../adapters/slack/start-slack.ts';
import { FAST_RETRIES } from '../fakes/slack/bolt-harness.ts';
import { startFakeSlack, type FakeSlack, type FakeSlackOptions } from '../fakes/slack/index.ts';
import { startEmulator, type EmulatorOptions } from '../fakes/service/emulator.ts';
import { silentLogger as logger } from '../helpers/logger.ts';

export type SlackMode = 'http' | 'mounted' | 'socket';

export interface HeraldOnSlack {
  core: Core;
  slack: RunningSlack;
  metrics: Metrics;
  ops?: OpsServer;
  /** Where Slack posts events in HTTP modes. */
  eventsUrl?: string;
  /** Resolves once every reply and command Herald has started has finished, its last write to Slack included. */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

export type Emulator = Awaited<ReturnType<typeof startEmulator>>;

export interface StartOptions {
  mode: SlackMode;
  env?: Env;
  store?: Store;
  tuning?: SlackTuning;
  /** Leave the fake's request URL alone (a second instance that is not yet receiving). */
  keepRequestUrl?: boolean;
  health?: HealthRegistry;
  /** The shutdown the adapter answers to (a coordinator's signals and tracking). */
  shutdown?: PlatformHooks['shutdown'];
  /** The clock schedules run by. */
  now?: () => number;
}

export async function startHerald(fake: FakeSlack, emu: Emulator, options: StartOptions): Promise<HeraldOnSlack> {
  const config = loadConfig(
    {
      API_BASE_URL: emu.url,
      API_KEY: emu.apiKey,
      STORE_URL: 'memory://',
      TZ: 'UTC',
      PORT: '0',
      QUOTA_USER_PER_MINUTE: '1000',
      PATH: process.env.PATH,
      SLACK_BOT_TOKEN: fake.botToken,
      SLACK_API_URL: fake.apiUrl,
      ...(options.mode === 'socket' ? { SLACK_APP_TOKEN: fake.appToken } : { SLACK_SIGNING_SECRET: fake.signingSecret }),
      ...options.env,
    },
    { envFile: '/nonexistent/.env' },
  );
  const core = await createCore(config, logger, { ...(options.store && { store: options.store }), ...(options.now && { now: options.now }) });
  const metrics = createMetrics({ defaultMetrics: false });
  const working = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    working.add(work);
    const forget = () => working.delete(work);
    work.then(forget, forget);
    return work;
  };
  const ops = options.mode === 'mounted' ? createOpsServer({ health: new HealthRegistry(), metrics, logger }) : undefined;
  const slack = await startSlack({
    core,
    logger,
    hooks: {
      metrics,
      shutdown: options.shutdown
        ? {
            drainingSignal: options.shutdown.drainingSignal,
            deadlineSignal: options.shutdown.deadlineSignal,
            track: (work, label) => options.shutdown!.track(track(work), label),
          }
        : { track, drainingSignal: new AbortController().signal, deadlineSignal: new AbortController().signal },
      ...(ops && { mount: (prefix, handler) => ops.mount(prefix, handler) }),
      ...(options.health && { health: options.health }),
    },
    tuning: { host: '127.0.0.1', clientPingTimeoutMs: 400, retryConfig: FAST_RETRIES, ...options.tuning },
  });
  let eventsUrl: string | undefined;
  if (ops) eventsUrl = `http://127.0.0.1:${await ops.listen(0, '127.0.0.1')}/slack/events`;
  else if (slack.port !== undefined) eventsUrl = `http://127.0.0.1:${slack.port}/slack/events`;
  if (eventsUrl && !options.keepRequestUrl) fake.setRequestUrl(eventsUrl);
  return {
    core,
    slack,
    metrics,
    ...(ops && { ops }),
    ...(eventsUrl && { eventsUrl }),
    settled: async () => {
      while (working.size > 0) await Promise.allSettled([...working]);
    },
    stop: async () => {
      await slack.stop();
      await ops?.close({ graceMs: 0 });
      await core.close();
    },
  };
}

export interface SlackWorldOptions extends Partial<StartOptions> {
  slack?: FakeSlackOptions;
  emulator?: EmulatorOptions;
}

/** A fake Slack, the service emulator and Herald between them (HTTP mode unless `mode` says otherwise). */
export interface SlackWorld {
  fake: FakeSlack;
  emu: Emulator;
  herald: HeraldOnSlack;
}

export async function startSlackWorld(options: SlackWorldOptions = {}): Promise<SlackWorld> {
  const { slack, emulator, mode = 'http', ...start } = options;
  const fake = await startFakeSlack(slack);
  const emu = await startEmulator(emulator);
  const herald = await startHerald(fake, emu, { mode, ...start });
  return { fake, emu, herald };
}

/** Stops Herald first, so that nothing it still does meets a closed fake. */
export async function stopSlackWorld({ fake, emu, herald }: SlackWorld): Promise<void> {
  await herald.stop();
  await fake.close();
  await emu.close();
}

/** Every message the Slack adapter hands the core from now on, in order (the engine still answers each). */
export function recordHanded(herald: HeraldOnSlack): IncomingMessage[] {
  const handed: IncomingMessage[] = [];
  const engine = herald.core.engine;
  const handle = engine.handle.bind(engine);
  engine.handle = (message, options) => {
    handed.push(message);
    return handle(message, options);
  };
  return handed;
}
