import { readFileSync } from 'node:fs';
import { loadConfig, type Config, type Env } from '../../src/config/config.ts';
import { createCore, type Core } from '../../src/core.ts';
import { createLogger, type Logger } from '../../src/log/logger.ts';
import { errorLine, UsageError } from './cli-error.ts';
import { chatCommand, describeCommand, sayCommand, transcribeCommand } from './one-shot.ts';
import { mcpCommand } from './mcp-command.ts';
import { registerCommand } from './register.ts';
import { runBots } from './run-bots.ts';
import { runShell } from './shell.ts';
import type { TerminalOutput } from './terminal-reply.ts';
import { USAGE } from './usage.ts';

export interface CliIo extends TerminalOutput {
  in: NodeJS.ReadableStream;
}

type OneShot = (args: string[], core: Core, io: TerminalOutput) => Promise<void>;

const ONE_SHOT: Record<string, OneShot> = {
  chat: chatCommand,
  describe: describeCommand,
  transcribe: transcribeCommand,
  say: sayCommand,
};

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function secretsOf(env: Env): string[] {
  return Object.entries(env)
    .filter(([name, value]) => /KEY|TOKEN|SECRET/.test(name) && typeof value === 'string' && value.length >= 4)
    .map(([, value]) => value as string);
}

/** Commands that answer once print nothing but their result, unless LOG_LEVEL asks for logs. */
function oneShotLogger(config: Config, env: Env, secrets: string[]): Logger {
  return createLogger({ level: env.LOG_LEVEL ? config.logLevel : 'silent', secrets });
}

/** The `herald` command line; returns the process exit code. */
export async function main(argv: string[], env: Env, io: CliIo): Promise<number> {
  const secrets = secretsOf(env);
  const [command, ...args] = argv;
  let core: Core | undefined;
  try {
    if (command === '--help' || command === '-h' || command === 'help') {
      io.out.write(`${USAGE}\n`);
      return 0;
    }
    if (command === '--version' || command === '-v') {
      io.out.write(`herald ${version()}\n`);
      return 0;
    }
    if (command === 'register') {
      await registerCommand(args, loadConfig(env, { requireService: false }), io);
      return 0;
    }
    if (command === 'mcp') {
      const config = loadConfig(env, { requireService: false });
      await mcpCommand(args, config, oneShotLogger(config, env, secrets), io);
      return 0;
    }
    if (command !== undefined && !(command in ONE_SHOT)) throw new UsageError(`unknown command "${command}"`);
    const config = loadConfig(env);
    secrets.push(config.api.key);
    if (command === undefined && (config.discord || config.slack)) {
      await runBots(config, createLogger({ level: config.logLevel, secrets }));
      return 0;
    }
    if (command === undefined) {
      // Memory of a terminal session lives only as long as the session.
      const shellConfig = { ...config, storeUrl: 'memory://' };
      core = await createCore(shellConfig, oneShotLogger(config, env, secrets));
      // A terminal session has no start-up to keep short: its first question can use every MCP server.
      await core.mcp.firstAttempts();
      await runShell(core, io, secrets);
      return 0;
    }
    core = await createCore({ ...config, storeUrl: 'memory://' }, oneShotLogger(config, env, secrets));
    if (command === 'chat') await core.mcp.firstAttempts();
    await ONE_SHOT[command]!(args, core, io);
    return 0;
  } catch (error) {
    io.err.write(`${errorLine(error, secrets)}\n`);
    return error instanceof UsageError ? 2 : 1;
  } finally {
    await core?.close().catch(() => {});
  }
}
