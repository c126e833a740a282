import { type DiscordBot, startDiscord } from '../adapters/discord/index.ts';
import { loadConfig } from '../src/config/config.ts';
import { createCore } from '../src/core.ts';
import { createLogger } from '../src/log/logger.ts';

/** Where a bench's world thread serves the fake Discord and the service. */
export interface DiscordWorldSetup {
  token: string;
  restUrl: string;
  apiUrl: string;
  apiKey: string;
  botId: string;
}

export interface DiscordHerald {
  bot: DiscordBot;
  /** Resolves once `count` pieces of work (answers, presses) have settled since the start. */
  finished(count: number): Promise<void>;
  stop(): Promise<void>;
}

/** The real core and discord.js client in this thread, on the world's fake Discord and service, quotas out of the way. */
export async function startDiscordHerald(setup: DiscordWorldSetup): Promise<DiscordHerald> {
  const config = loadConfig(
    {
      API_BASE_URL: setup.apiUrl,
      API_KEY: setup.apiKey,
      STORE_URL: 'memory://',
      DISCORD_TOKEN: setup.token,
      DISCORD_API_URL: setup.restUrl,
      THINKING: 'off',
      WEB_SEARCH: 'off',
      QUOTA_USER_PER_MINUTE: '100000',
      QUOTA_GUILD_PER_MINUTE: '100000',
    },
    { envFile: '/nonexistent/.env' },
  );
  const logger = createLogger({ level: 'silent', secrets: [] });
  const core = await createCore(config, logger);
  let done = 0;
  const waiters = new Set<() => void>();
  const never = new AbortController().signal;
  const bot = await startDiscord({
    core,
    logger,
    hooks: {
      shutdown: {
        drainingSignal: never,
        deadlineSignal: never,
        track(work) {
          const settle = () => {
            done++;
            for (const wake of waiters) wake();
          };
          work.then(settle, settle);
          return work;
        },
      },
    },
  });
  return {
    bot,
    finished: (count) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (done < count) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
    stop: async () => {
      await bot.stop();
      await core.close();
    },
  };
}
