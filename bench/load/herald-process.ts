import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FakeDiscord } from '../../test/fakes/discord/index.ts';
import type { Emulator } from '../../test/fakes/service/emulator.ts';
import type { FakeSlack } from '../../test/fakes/slack/index.ts';

const BIN = join(import.meta.dirname, '..', '..', 'adapters', 'cli', 'herald.ts');
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;
const UNLIMITED = String(1_000_000_000);

/** Herald running as in production (`herald` with no command), in a child process of its own. */
export interface HeraldProcess {
  pid: number;
  /** The ops server: /healthz, /readyz, /metrics, and /slack when Slack runs in HTTP mode. */
  opsUrl: string;
  /** Log lines at warn and above (JSON objects, or `{raw}` for anything else on stderr). */
  logs: Array<Record<string, unknown>>;
  /** The autogroup nice value Herald runs at, when one was asked for and could be set. */
  priority: number | undefined;
  /** SIGTERM, then SIGKILL if it has not exited in time; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL at once, as a crash or an OOM kill ends it; resolves when it has exited. */
  kill(): Promise<void>;
}

export interface StartHeraldOptions {
  env: Record<string, string>;
  cwd: string;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
  /**
   * Runs Herald in a session of its own at this scheduling priority (nice value of its autogroup; negative needs
   * root), so that other work on a shared machine weighs less against it. Left as is when not permitted.
   */
  priority?: number;
}

/** The fakes Herald talks to instead of the platforms and the service. */
export interface HeraldPeers {
  emulator: Emulator;
  discord: FakeDiscord;
  slack?: FakeSlack | undefined;
}

/** Herald's environment: production settings apart from the fakes' addresses and quotas raised out of the way. */
export function unthrottledHeraldEnv({ emulator, discord, slack }: HeraldPeers, storeUrl: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    API_BASE_URL: emulator.url,
    API_KEY: emulator.apiKey,
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.restUrl,
    ...(slack && { SLACK_BOT_TOKEN: slack.botToken, SLACK_SIGNING_SECRET: slack.signingSecret, SLACK_API_URL: slack.apiUrl }),
    STORE_URL: storeUrl,
    PORT: '0',
    LOG_LEVEL: 'info',
    THINKING: 'off',
    WEB_SEARCH: 'off',
    QUOTA_USER_PER_MINUTE: UNLIMITED,
    QUOTA_GUILD_PER_MINUTE: UNLIMITED,
    QUOTA_USER_DAILY_TOKENS: UNLIMITED,
    QUOTA_GUILD_DAILY_TOKENS: UNLIMITED,
  };
}

/** Starts Herald and waits for its "Herald is running" log line, which names the ops port. */
export async function startHerald({ env, cwd, nodeArgs = [], priority }: StartHeraldOptions): Promise<HeraldProcess> {
  // With autogroup scheduling a nice value only counts within a session, so Herald gets a session of its own.
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', ...nodeArgs, BIN], {
    env,
    cwd,
    detached: priority !== undefined,
  });
  // A detached child outlives a bench that dies; this kills it with the bench.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const appliedPriority = priority === undefined ? undefined : prioritize(child.pid!, priority);
  const logs: Array<Record<string, unknown>> = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  void exited.then(() => process.removeListener('exit', killOnExit));
  let buffer = '';
  const running = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`herald did not start in time: ${JSON.stringify(logs.slice(-5))}`)), START_TIMEOUT_MS);
    child.stderr.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let newline;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        let entry: Record<string, unknown>;
        try {
          entry = JSON.parse(line) as Record<string, unknown>;
        } catch {
          entry = { raw: line };
        }
        if (typeof entry.port === 'number' && String(entry.msg).startsWith('Herald is running')) {
          clearTimeout(timer);
          resolve(entry.port);
        } else if (entry.raw !== undefined || Number(entry.level) >= 40) {
          logs.push(entry);
        }
      }
    });
    child.stdout.resume();
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`herald exited with ${code} before it ran: ${JSON.stringify(logs.slice(-5))}`));
    });
  });
  let port: number;
  try {
    port = await running;
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    pid: child.pid!,
    priority: appliedPriority,
    opsUrl: `http://127.0.0.1:${port}`,
    logs,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

function prioritize(pid: number, nice: number): number | undefined {
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(nice));
    return nice;
  } catch {
    return undefined;
  }
}
