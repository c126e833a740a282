import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type EngineHandle } from '../../src/conversation/create-engine.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import { FakeAdapter, testConfig } from '../conversation/fake-adapter.ts';
import { startAcmeHttp, type AcmeHttp } from '../fakes/mcp/acme-http.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';
import { silentLogger } from '../helpers/logger.ts';

const everythingServer = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
const acmeStdio = new URL('../fakes/mcp/acme-stdio.ts', import.meta.url).pathname;
const HERALD_SECRET = 'xoxb-herald-own-token-never-shared';

let emulator: Emulator;
let http: AcmeHttp;
let legacy: AcmeHttp;
let handle: EngineHandle;
let dir: string;

beforeAll(async () => {
  [emulator, http, legacy] = await Promise.all([startEmulator(), startAcmeHttp(), startAcmeHttp({ legacySse: true })]);
  dir = mkdtempSync(join(tmpdir(), 'herald-mcp-'));
  const mcpConfig = join(dir, 'mcp.json');
  writeFileSync(
    mcpConfig,
    JSON.stringify({
      mcpServers: {
        acme: { command: process.execPath, args: [acmeStdio], env: { ACME_REGION: 'eu-${REGION}' }, trusted: true, timeoutSeconds: 1 },
        everything: { command: process.execPath, args: [everythingServer, 'stdio'], trusted: true },
        web: { url: http.url, headers: { Authorization: 'Bearer ${WEB_TOKEN}' }, trusted: true },
        old: { url: legacy.url },
      },
    }),
  );
  const config = testConfig({
    API_BASE_URL: emulator.url,
    API_KEY: emulator.apiKey,
    WEB_SEARCH: 'off',
    THINKING: 'off',
    MCP_CONFIG: mcpConfig,
    REGION: 'west',
    WEB_TOKEN: 'web-secret',
    SLACK_BOT_TOKEN: HERALD_SECRET,
    SLACK_APP_TOKEN: 'xapp-herald',
  });
  handle = await createEngine({ config, logger: silentLogger, store: new MemoryStore() });
  await handle.mcp.firstAttempts();
});

afterAll(async () => {
  await handle?.close();
  await Promise.all([emulator?.close(), http?.close(), legacy?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

function adapter(): FakeAdapter {
  return new FakeAdapter(handle.engine, { workspaceId: 'guild-1', channelId: `channel-${Math.random()}` });
}

function offeredTools(): string[] {
  const body = emulator.requests.at(-1)!.body as { tools?: { function: { name: string } }[] };
  return (body.tools ?? []).map((t) => t.function.name);
}

describe('MCP servers as tools', () => {
  it('connects stdio, Streamable HTTP and legacy SSE servers and offers their tools beside the built-ins', async () => {
    expect(handle.mcp.status().map((s) => [s.name, s.state])).toEqual([
      ['acme', 'connected'],
      ['everything', 'connected'],
      ['web', 'connected'],
      ['old', 'connected'],
    ]);
    const reply = await adapter().send('call everything__echo {"message":"hello from the model"}');
    expect(reply.text).toBe('Tool results:\n- everything__echo: Echo: hello from the model');
    const offered = offeredTools();
    expect(offered).toEqual(expect.arrayContaining(['calculate', 'everything__echo', 'acme__pid', 'web__pid', 'old__pid']));
    for (const name of offered) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(http.requests.some((r) => r.method === 'POST' && r.authorization === 'Bearer web-secret')).toBe(true);
    expect(legacy.requests.map((r) => `${r.method} ${r.path}`)).toEqual(expect.arrayContaining(['POST /mcp', 'GET /mcp', 'POST /messages']));
    expect((await adapter().send('call web__pid')).text).toMatch(/^Tool results:\n- web__pid: pid \d+$/);
  });
});
