import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/cli-harness.ts';
import { startEmulator } from '../fakes/service/emulator.ts';

const acmeStdio = new URL('../fakes/mcp/acme-stdio.ts', import.meta.url).pathname;
let dir: string;
let env: Record<string, string>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'herald-mcp-cli-'));
  const config = join(dir, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        acme: { command: process.execPath, args: [acmeStdio], trusted: true },
        gone: { command: join(dir, 'no-such-server') },
      },
    }),
  );
  env = { MCP_CONFIG: config, TZ: 'UTC' };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('herald mcp', () => {
  it('lists each server with its state and tools, and which tools ask for approval', async () => {
    const run = await runCli(['mcp', 'list'], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('acme (stdio): connected');
    expect(lines).toContain("  pid — as acme__pid: The server process's id.");
    expect(lines).toContain('  write_note [asks for approval] — as acme__write_note: Writes a note (changes the world).');
    expect(lines.find((line) => line.startsWith('  issues.search'))).toMatch(/as acme__issues_search_[0-9a-f]{8}: Search the issues/);
    expect(lines.find((line) => line.startsWith('gone'))).toMatch(/^gone \(stdio\): down — .*ENOENT/);
  });

  it('calls a tool by its own name with arguments checked against its schema, and fails with one line', async () => {
    const found = await runCli(['mcp', 'call', 'acme', 'issues.search', '{"query":"login","state":"closed"}'], env);
    expect([found.code, found.stdout, found.stderr]).toEqual([0, 'found 2 issues for {"query":"login","state":"closed"}\n', '']);

    const invalid = await runCli(['mcp', 'call', 'acme', 'issues.search', '{"query":"login","state":"stale"}'], env);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^herald: invalid arguments: .*state.*allowed values.*\n$/);

    const failed = await runCli(['mcp', 'call', 'acme', 'broken'], env);
    expect([failed.code, failed.stderr]).toEqual([1, 'herald: the database is on fire\n']);

    const notObject = await runCli(['mcp', 'call', 'acme', 'pid', '[]'], env);
    expect([notObject.code, notObject.stderr]).toEqual([2, 'herald: the arguments must be a JSON object, e.g. {"query":"x"} (see herald --help)\n']);

    const down = await runCli(['mcp', 'call', 'gone', 'anything'], env);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^herald: the MCP server "gone" is down \(.*ENOENT.*\)\n$/);
  });

  it('lets `herald chat` use the servers once they are up', async () => {
    const emulator = await startEmulator();
    try {
      const run = await runCli(['chat', 'call acme__pid', '--no-search'], { ...env, API_BASE_URL: emulator.url, API_KEY: emulator.apiKey });
      expect(run.stderr).toBe('');
      expect(run.stdout).toMatch(/^Tool results:\n- acme__pid: pid \d+\n/);
    } finally {
      await emulator.close();
    }
  });
});
