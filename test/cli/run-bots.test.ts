import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../commands/index.ts';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.ts';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/index.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';
import { opusBackend } from '../../src/media/opus-backend.ts';
import { runCli } from './cli-harness.ts';

const bin = join(import.meta.dirname, '..', '..', 'adapters', 'cli', 'herald.ts');

let emu: Emulator;
let discord: FakeDiscord;
let slack: FakeSlack;

beforeAll(async () => {
  emu = await startEmulator();
  discord = await startFakeDiscord({ heartbeatIntervalMs: 1000 });
  slack = await startFakeSlack();
});
afterAll(async () => {
  await slack.close();
  await discord.close();
  await emu.close();
});

function env(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    API_BASE_URL: emu.url,
    API_KEY: emu.apiKey,
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.restUrl,
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_SIGNING_SECRET: slack.signingSecret,
    SLACK_API_URL: slack.apiUrl,
    STORE_URL: 'memory://',
    PORT: '0',
    THINKING: 'off',
    WEB_SEARCH: 'off',
    LOG_LEVEL: 'info',
  };
}

interface Running {
  child: ChildProcessWithoutNullStreams;
  port: number;
  logs: Array<Record<string, unknown>>;
  exited: Promise<number | null>;
}

async function startHerald(): Promise<Running> {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', bin], { env: env() });
  const logs: Array<Record<string, unknown>> = [];
  let buffer = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`herald did not start: ${buffer}`)), 20_000);
    child.stderr.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let newline;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        try {
          const entry = JSON.parse(line) as Record<string, unknown>;
          logs.push(entry);
          if (typeof entry.port === 'number' && String(entry.msg).startsWith('Herald is running')) {
            clearTimeout(timer);
            resolve(entry.port);
          }
        } catch {
          logs.push({ raw: line });
        }
      }
    });
    void exited.then((code) => reject(new Error(`herald exited with ${code}: ${buffer}`)));
  });
  return { child, port, logs, exited };
}

describe('herald with DISCORD_TOKEN set', () => {
  it('registers the slash commands for one server', async () => {
    const run = await runCli(['register', '--guild', discord.guild.id], { DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.restUrl });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Registered ${commands.length} commands in server ${discord.guild.id}: /ask /say`));
    expect(discord.commands(discord.guild.id).map((c) => (c as { name: string }).name)).toEqual(expect.arrayContaining(commands.map((c) => c.name)));
  });

  it('runs the bot on Discord and Slack with health and metrics, answers, and on SIGTERM closes a reply in progress cleanly', async () => {
    const herald = await startHerald();
    try {
      const base = `http://127.0.0.1:${herald.port}`;
      const running = herald.logs.find((entry) => String(entry.msg).startsWith('Herald is running'))!;
      expect(running.opus).toBe(opusBackend());
      expect(running.msg).toMatch(new RegExp(`Opus: ${opusBackend()} libopus$`));
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { checks: Array<{ name: string }> }).checks.map((c) => c.name)).toEqual(
        expect.arrayContaining(['service', 'store', 'discord']),
      );

      const dm = discord.dmChannel.id;
      discord.sendMessage({ channelId: dm, authorId: discord.users.alice.id, content: 'hello bot' });
      await discord.waitFor(() => discord.messages(dm).find((m) => m.authorId === discord.botUser.id && m.content === 'Echo: hello bot'), 10_000);
      slack.setRequestUrl(`${base}/slack/events`);
      const mention = slack.events.appMention({ text: 'hello from slack' });
      expect((await slack.deliverEvent(mention)).status).toBe(200);
      await slack.waitFor(
        () => slack.botMessages(slack.channelId).find((m) => m.thread_ts === mention.ts && /Echo: .*hello from slack/.test(m.text)),
        10_000,
      );
      expect(await (await fetch(`${base}/metrics`)).text()).toMatch(/herald_requests_total\{capability="chat",platform="discord",outcome="ok"\} 1/);

      emu.pace.tokensPerSecond = 15;
      discord.sendMessage({ channelId: dm, authorId: discord.users.alice.id, content: 'long 400' });
      const started = await discord.waitFor(
        () => discord.messages(dm).find((m) => m.authorId === discord.botUser.id && m.content.length > 20 && !m.content.startsWith('Echo')),
        10_000,
      );
      herald.child.kill('SIGTERM');
      const code = await herald.exited;
      expect([0, 1]).toContain(code);
      const final = discord.messages(dm).find((m) => m.id === started.id)!;
      const lastBotText = discord
        .messages(dm)
        .filter((m) => m.authorId === discord.botUser.id)
        .at(-1)!.content;
      expect(final.content.length).toBeGreaterThan(started.content.length - 1);
      expect(lastBotText).toMatch(/(restarting|cancelled|interrupted)/i);
    } finally {
      emu.pace.tokensPerSecond = 0;
      herald.child.kill('SIGKILL');
    }
  });
});
