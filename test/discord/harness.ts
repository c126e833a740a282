import { startDiscord, type DiscordBot } from '../../adapters/discord/index.ts';
import type { PlatformHooks } from '../../src/platform/platform-hooks.ts';
import { loadConfig, type Config, type Env } from '../../src/config/config.ts';
import { createCore, type Core } from '../../src/core.ts';
import { startFakeDiscord, type FakeDiscord, type FakeDiscordOptions, type MessageRecord, type RestRequestRecord } from '../fakes/discord/index.ts';
import { startEmulator, type Emulator, type EmulatorOptions } from '../fakes/service/emulator.ts';
import { silentLogger } from '../helpers/logger.ts';

export interface HarnessOptions {
  /** Extra variables; a function may first set up the fake (ids for allow lists) before Herald connects. */
  env?: Env | ((fake: FakeDiscord) => Env);
  fake?: FakeDiscordOptions;
  emulator?: EmulatorOptions;
  hooks?: Omit<PlatformHooks, 'shutdown'>;
}

/** The real core against the service emulator, the real discord.js client against the fake Discord. */
export interface Harness {
  fake: FakeDiscord;
  emu: Emulator;
  config: Config;
  core: Core;
  bot: DiscordBot;
  /** `<@bot>`: how a user mentions Herald. */
  mention: string;
  /** Replies (messages and commands) finished so far. */
  readonly finished: number;
  /** Resolves once `count` replies have finished. */
  repliesFinished(count: number, timeoutMs?: number): Promise<void>;
  /** Herald's messages in a channel, oldest first. */
  botMessages(channelId: string): MessageRecord[];
  /** REST requests that created or edited messages. */
  messageRequests(): RestRequestRecord[];
  close(): Promise<void>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const emu = await startEmulator(options.emulator);
  const fake = await startFakeDiscord({ heartbeatIntervalMs: 1000, ...options.fake });
  const config = loadConfig(
    {
      API_BASE_URL: emu.url,
      API_KEY: emu.apiKey,
      STORE_URL: 'memory://',
      DISCORD_TOKEN: fake.token,
      DISCORD_API_URL: fake.restUrl,
      THINKING: 'off',
      ...(typeof options.env === 'function' ? options.env(fake) : options.env),
    },
    { envFile: '/nonexistent/.env' },
  );
  const core = await createCore(config, silentLogger);
  let finished = 0;
  const waiters = new Set<() => void>();
  const never = new AbortController().signal;
  const hooks: PlatformHooks = {
    ...options.hooks,
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
  };
  const bot = await startDiscord({ core, logger: silentLogger, hooks });
  return {
    fake,
    emu,
    config,
    core,
    bot,
    mention: `<@${fake.botUser.id}>`,
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
