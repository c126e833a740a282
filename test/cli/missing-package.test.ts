import { describe, expect, it, vi } from 'vitest';
import { runCli } from './cli-harness.ts';

vi.mock('discord.js', () => {
  throw new Error("Cannot find package 'discord.js' imported from /app/src/load-package.ts");
});

describe('herald when a platform library is not installed', () => {
  it('stops with one line naming the package, not a stack trace', async () => {
    const run = await runCli(['register'], { DISCORD_TOKEN: 'token-1234' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^herald: could not load the package "discord\.js" \(.+\); reinstall Herald's dependencies with npm ci\n$/);
  });
});
