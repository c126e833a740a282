import { startDiscord, type DiscordBot } from '../../adapters/discord/index.ts';
import type { PlatformHooks } from '../../src/platform/platform-hooks.ts';
import { loadConfig, type Config, type Env } from '../../src/config/config.ts';
import { createCore, type Core } from '../../src/core.ts';
import {
  startFakeDiscord,
  type FakeDiscord,
  type FakeDiscordOptions,
  type MessageRecord,
  type RateLimitConfig,
  type RestRequestRecord,
} from '../fakes/discord/index.ts';
import { startEmulator, type Emulator, type EmulatorOptions } from '../fakes/service/emulator.ts';
import type { Store } from '../../src/store/store.ts';
import { silentLogger } from '../helpers/logger.ts';

/**
 * Message buckets of one second instead of Discord's five, for tests of what answers say rather than how they
 * are paced: Herald spreads its edits over the window the headers announce, so a channel's next answer no
 * longer waits seconds for its last edit.
 */
export const ONE_SECOND_BUCKETS: Partial<RateLimitConfig> = {
  messageCreate: { limit: 5, windowMs: 1000 },
  messageEdit: { limit: 5, windowMs: 1000 },
  typing: { limit: 5, windowMs: 1000 },
};

export interface HarnessOptions {
  /** Extra variables; a function may first set up the fake (ids for allow lists) before Herald connects. */
  env?: Env | ((fake: FakeDiscord) => Env);
  fake?: FakeDiscordOptions;
  emulator?: EmulatorOptions;
  hooks?: Omit<PlatformHooks, 'shutdown'>;
  /** The clock schedules run by. */
  now?: () => number;
}

/** The real core against the service emulator, the real discord.js client against the fake Discord. */
export interface Harness extends Instance {
  fake: FakeDiscord;
  emu: Emulator;
  /** `<@bot>`: how a user mentions Herald. */
  mention: string;
  /** Herald's messages in a channel, oldest first. */
  botMessages(channelId: string): MessageRecord[];
  /** REST requests that created or edited messages. */
  messageRequests(): RestRequestRecord[];
  close(): Promise<void>;
}

/** One Herald instance (its own core and discord.js client) on a fake Discord and emulator that others may share. */
export interface Instance {
  config: Config;
  core: Core;
  bot: DiscordBot;
  /** Replies (messages and commands) finished so far. */
  readonly finished: number;
  /** Resolves once `count` replies have finished. */
  repliesFinished(count: number, timeoutMs?: number): Promise<void>;
}

export interface InstanceOptions {
  fake: FakeDiscord;
  emu: Emulator;
  /** Variables over the defaults (a memory store, thinking off). */
  env?: Env;
  /** A store shared with other instances in this process, instead of one from STORE_URL. */
  store?: Store;
  hooks?: Omit<PlatformHooks, 'shutdown'>;
  /** The clock schedules run by. */
  now?: () => number;
}

export async function startInstance({ fake, emu, env, store, hooks, now }: InstanceOptions): Promise<Instance> {
  const config = loadConfig(
    {
      API_BASE_URL: emu.url,
      API_KEY: emu.apiKey,
      STORE_URL: 'memory://',
      DISCORD_TOKEN: fake.token,
      DISCORD_API_URL: fake.restUrl,
      THINKING: 'off',
      ...env,
    },
    { envFile: '/nonexistent/.env' },
  );
  const core = await createCore(config, silentLogger, { ...(store && { store }), ...(now && { now }) });
  let finished = 0;
  const waiters = new Set<() => void>();
  const never = new AbortController().signal;
  const bot = await startDiscord({
    core,
    logger: silentLogger,
    hooks: {
      ...hooks,
      shutdown: {
        drainingSignal: never,
        deadlineSignal: never,
        track(work) {
          const done = () => {
            finished++;
            for (const wake of waiters) wake();
          };
          work.then(done, done);
          return work;
        },
      },
    },
  });
  return {
    config,
    core,
    bot,
    get finished() {
      return finished;
    },
    repliesFinished(count, timeoutMs = 15_000) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${count} finished replies (${finished} so far)`));
        }, timeoutMs);
        const check = () => {
          if (finished < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });
    },
  };
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const emu = await startEmulator(options.emulator);
  const fake = await startFakeDiscord({ heartbeatIntervalMs: 1000, ...options.fake });
  const env = typeof options.env === 'function' ? options.env(fake) : options.env;
  const instance = await startInstance({ fake, emu, env, hooks: options.hooks, ...(options.now && { now: options.now }) });
  const { config, core, bot } = instance;
  return {
    fake,
    emu,
    config,
    core,
    bot,
    mention: `<@${fake.botUser.id}>`,
    get finished() {
      return instance.finished;
    },
    repliesFinished: (count, timeoutMs) => instance.repliesFinished(count, timeoutMs),
    botMessages: (channelId) => fake.messages(channelId).filter((m) => m.authorId === fake.botUser.id),
    messageRequests: () =>
      fake.requests.filter((r) => (r.method === 'POST' || r.method === 'PATCH') && /\/messages|\/webhooks\/\d+\/[^/]+$/.test(r.path)),
    async close() {
      await bot.stop();
      await core.close();
      await fake.close();
      await emu.close();
    },
  };
}
