import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandContext, CommandServices } from '../../commands/command.ts';
import { runCommand } from '../../commands/run-command.ts';
import { settings } from '../../commands/settings.ts';
import type { Config } from '../../src/config/config.ts';
import { createEngine, type EngineHandle } from '../../src/conversation/create-engine.ts';
import { mcpHealthCheck } from '../../src/mcp/mcp-health.ts';
import { HealthRegistry } from '../../src/ops/health.ts';
import { mcpMetricsRecorder } from '../../src/ops/mcp-metrics.ts';
import { createMetrics } from '../../src/ops/metrics.ts';
import { createOpsServer, type OpsServer } from '../../src/ops/ops-server.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import { FakeAdapter, testConfig } from '../conversation/fake-adapter.ts';
import { startAcmeHttp, type AcmeHttp } from '../fakes/mcp/acme-http.ts';
import { startEverythingHttp, type EverythingHttp } from '../fakes/mcp/everything-http.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';
import { silentLogger } from '../helpers/logger.ts';

const everythingServer = fileURLToPath(import.meta.resolve('@modelcontextprotocol/server-everything/dist/index.js'));
const acmeStdio = new URL('../fakes/mcp/acme-stdio.ts', import.meta.url).pathname;
const HERALD_SECRET = 'xoxb-herald-own-token-never-shared';
const savedToken = process.env.SLACK_BOT_TOKEN;

let emulator: Emulator;
let http: AcmeHttp;
let legacy: AcmeHttp;
let everythingHttp: EverythingHttp;
let handle: EngineHandle;
let config: Config;
const metrics = createMetrics({ defaultMetrics: false });
const health = new HealthRegistry();
let ops: OpsServer;
let opsBase: string;
let dir: string;

beforeAll(async () => {
  // As in production, Herald's own token is in its environment; a child must not inherit it.
  process.env.SLACK_BOT_TOKEN = HERALD_SECRET;
  [emulator, http, legacy, everythingHttp] = await Promise.all([
    startEmulator(),
    startAcmeHttp(),
    startAcmeHttp({ legacySse: true }),
    startEverythingHttp(),
  ]);
  dir = mkdtempSync(join(tmpdir(), 'herald-mcp-'));
  const mcpConfig = join(dir, 'mcp.json');
  writeFileSync(
    mcpConfig,
    JSON.stringify({
      mcpServers: {
        acme: { command: process.execPath, args: [acmeStdio], env: { ACME_REGION: 'eu-${REGION}' }, trusted: true, timeoutSeconds: 1 },
        everything: { command: process.execPath, args: [everythingServer, 'stdio'], trusted: true },
        web: { url: http.url, headers: { Authorization: 'Bearer ${WEB_TOKEN}' }, trusted: true, scope: ['test:guild-1'] },
        old: { url: legacy.url },
        everything_http: { url: everythingHttp.url, trusted: true },
        gone: { command: process.execPath, args: ['-e', 'process.exit(1)'] },
      },
    }),
  );
  config = testConfig({
    API_BASE_URL: emulator.url,
    API_KEY: emulator.apiKey,
    WEB_SEARCH: 'off',
    QUOTA_USER_PER_MINUTE: '1000',
    QUOTA_GUILD_PER_MINUTE: '1000',
    THINKING: 'off',
    MCP_CONFIG: mcpConfig,
    REGION: 'west',
    WEB_TOKEN: 'web-secret',
    SLACK_BOT_TOKEN: HERALD_SECRET,
    SLACK_APP_TOKEN: 'xapp-herald',
  });
  handle = await createEngine({ config, logger: silentLogger, store: new MemoryStore(), recordMcpCall: mcpMetricsRecorder(metrics) });
  health.register('mcp', mcpHealthCheck(handle.mcp), { critical: false });
  ops = createOpsServer({ health, metrics, logger: silentLogger });
  opsBase = `http://127.0.0.1:${await ops.listen(0, '127.0.0.1')}`;
  await handle.mcp.firstAttempts();
});

afterAll(async () => {
  await ops?.close({ graceMs: 0 });
  await handle?.close();
  await Promise.all([emulator?.close(), http?.close(), legacy?.close(), everythingHttp?.close()]);
  rmSync(dir, { recursive: true, force: true });
  if (savedToken === undefined) delete process.env.SLACK_BOT_TOKEN;
  else process.env.SLACK_BOT_TOKEN = savedToken;
});

let channels = 0;

function adapter(workspaceId = 'guild-1', channelId = `channel-${++channels}`): FakeAdapter {
  return new FakeAdapter(handle.engine, { workspaceId, channelId });
}

interface OfferedTool {
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The function tools the model was offered in the newest request that had any. */
function offered(): OfferedTool[] {
  const bodies = emulator.requests.map((r) => r.body as { tools?: OfferedTool[] });
  return bodies.findLast((b) => b.tools)?.tools ?? [];
}

function offeredTools(): string[] {
  return offered().map((t) => t.function.name);
}

/** The one result line of a reply that called one tool. */
async function toolResult(text: string, on = adapter()): Promise<string> {
  const reply = await on.send(text);
  expect(reply.error).toBeUndefined();
  const match = /^Tool results:\n- [\w-]+: ([\s\S]*)$/.exec(reply.text);
  expect(match, reply.text).not.toBeNull();
  return match![1]!;
}

function acmeName(tool: string): string {
  return handle.mcp
    .status()
    .find((s) => s.name === 'acme')!
    .tools.find((t) => t.tool === tool)!.name;
}

describe('MCP servers as tools', () => {
  it('connects stdio, Streamable HTTP and legacy SSE servers and offers their tools beside the built-ins', async () => {
    expect(handle.mcp.status().map((s) => [s.name, s.state])).toEqual([
      ['acme', 'connected'],
      ['everything', 'connected'],
      ['web', 'connected'],
      ['old', 'connected'],
      ['everything_http', 'connected'],
      ['gone', 'down'],
    ]);
    const reply = await adapter().send('call everything__echo {"message":"hello from the model"}');
    expect(reply.text).toBe('Tool results:\n- everything__echo: Echo: hello from the model');
    const offered = offeredTools();
    expect(offered).toEqual(expect.arrayContaining(['calculate', 'everything__echo', 'acme__pid', 'web__pid', 'old__pid']));
    for (const name of offered) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(http.requests.some((r) => r.method === 'POST' && r.authorization === 'Bearer web-secret')).toBe(true);
    // After initialize, every request names the protocol version agreed on, as the spec requires.
    expect(http.requests.at(-1)!.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(legacy.requests.map((r) => `${r.method} ${r.path}`)).toEqual(expect.arrayContaining(['POST /mcp', 'GET /mcp', 'POST /messages']));
    expect((await adapter().send('call web__pid')).text).toMatch(/^Tool results:\n- web__pid: pid \d+$/);
    expect(await toolResult('call everything_http__get-sum {"a":2,"b":40}')).toContain('42');
  });

  it('maps a dotted name apart from its look-alike, flattens $ref and anyOf for the model and checks arguments against the original', async () => {
    const dotted = acmeName('issues.search');
    expect(dotted).toMatch(/^acme__issues_search_[0-9a-f]{8}$/);
    expect(acmeName('issues_search')).toBe('acme__issues_search');
    await adapter().send('hello');
    const schema = offered().find((t) => t.function.name === dotted)!.function.parameters;
    expect(schema).toEqual({
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words to look for' },
        state: { type: 'string', description: 'Issue state', enum: ['open', 'closed'] },
        limit: { type: 'integer', description: 'At most this many' },
        filter: { type: 'object', properties: { label: { type: 'string' }, author: { type: 'string' } } },
      },
      required: ['query', 'state'],
    });

    const found = await toolResult(`call ${dotted} {"query":"crash","state":"open","limit":5,"filter":{"label":"bug"}}`);
    expect(found).toBe('found 2 issues for {"query":"crash","state":"open","limit":5,"filter":{"label":"bug"}}');
    expect(await toolResult(`call ${dotted} {"query":"crash","state":"open","limit":null}`)).toContain('"limit":null');
    // Both filters at once fit the flattened schema but neither of the server's alternatives.
    const refused = await toolResult(`call ${dotted} {"query":"x","state":"open","filter":{"label":"bug","author":"ann"}}`);
    expect(refused).toMatch(/^Error: invalid arguments: .*filter/);
    expect(await toolResult(`call ${dotted} {"query":"x","state":"open","limit":99}`)).toMatch(/^Error: invalid arguments: .*limit.*50/);
    expect(await toolResult('call acme__issues_search {"id":7}')).toBe('issue 7');
  });

  it('restarts a crashed stdio server: the call in flight fails clearly, the next one works', async () => {
    const chat = adapter();
    const before = await toolResult('call acme__pid', chat);
    const crashing = await chat.send('call acme__crash');
    expect(crashing.notices.map((n) => n.text)).toEqual(['The tool acme · crash failed, so this answer may be incomplete.']);
    const crashed = crashing.text.replace(/^Tool results:\n- acme__crash: /, '');
    // What a server prints may hold its secrets: the operator's log has it, the model does not.
    expect(crashed).toBe('Error: the MCP server "acme" stopped; it is being restarted, so a retry may work');
    const after = await toolResult('call acme__pid', chat);
    expect(after).toMatch(/^pid \d+$/);
    expect(after).not.toBe(before);
    expect(handle.mcp.status().find((s) => s.name === 'acme')!.state).toBe('connected');
  });

  it('gives up on a call past the server timeout and stays usable', async () => {
    expect(await toolResult('call acme__sleep {"ms":5000}')).toBe('Error: the MCP server "acme" did not answer within 1 s');
    expect(await toolResult('call acme__sleep {"ms":1}')).toBe('slept');
    const exposition = await (await fetch(`${opsBase}/metrics`)).text();
    expect(exposition).toMatch(/^herald_mcp_tool_calls_total\{server="acme",tool="sleep",outcome="timeout"\} [1-9]\d*$/m);
  });

  it('cuts an oversized result, describes returned pictures with the vision model and passes tool errors to the model', async () => {
    const big = await toolResult('call acme__big {"chars":200000}');
    expect(big.length).toBeLessThanOrEqual(16_000);
    expect(big.endsWith('x\n[… the rest of the result was cut]')).toBe(true);
    expect(big.replace(/x/g, '').length).toBeLessThan(50);
    // Past 4 MB in one answer the connection is dropped at once (the call fails) and made again.
    expect(await toolResult('call web__big {"chars":5000000}')).toBe(
      'Error: the MCP server "web" sent more than 4 MB in one answer; it is being reconnected, so a retry may work',
    );
    expect(await toolResult('call acme__big {"chars":5000000}')).toBe(
      'Error: the MCP server "acme" sent more than 4 MB in one answer; it is being restarted, so a retry may work',
    );
    expect(await toolResult('call web__pid')).toMatch(/^pid \d+$/);
    expect(await toolResult('call acme__pid')).toMatch(/^pid \d+$/);
    const picture = await adapter().send('call acme__picture');
    expect(picture.text).toMatch(/^Tool results:\n- acme__picture: here it is:\n\[image 1, as described by the vision model: .+\]$/s);
    // Asked, answered, and the picture described: all three count against the asker's quotas.
    expect(picture.usage.serviceCalls).toBe(3);
    const visionRequest = emulator.requests.find((r) => (r.body as { model?: string }).model === 'svc-v2.5');
    expect(JSON.stringify(visionRequest?.body)).toContain('data:image/png;base64,');
    expect(await toolResult('call acme__broken')).toBe('Error: the database is on fire');
  });

  it('drops a legacy SSE stream whose event never ends: the call in flight fails at once, the next one reconnects', async () => {
    const running = handle.mcp.call('old', 'sleep', { ms: 1000 }, AbortSignal.timeout(10_000)).catch((error: Error) => error.message);
    await legacy.nextRequest('/messages');
    legacy.babble();
    expect(await running).toBe('the MCP server "old" sent an event of more than 4 MB on its stream; it is being reconnected, so a retry may work');
    expect(await handle.mcp.call('old', 'pid', {}, AbortSignal.timeout(10_000))).toMatch(/^pid \d+$/);
    expect(handle.mcp.status().find((s) => s.name === 'old')!.state).toBe('connected');
  });

  it("starts a stdio server with only the env its config names, never Herald's tokens", async () => {
    const env = JSON.parse(await toolResult('call everything__get-env')) as Record<string, string>;
    expect(env.PATH).toBe(process.env.PATH);
    const acmeEnv = JSON.parse(await toolResult('call acme__env')) as Record<string, string>;
    expect(acmeEnv.ACME_REGION).toBe('eu-west');
    for (const seen of [env, acmeEnv]) {
      expect(JSON.stringify(seen)).not.toContain(HERALD_SECRET);
      expect(JSON.stringify(seen)).not.toContain(emulator.apiKey);
      expect(Object.keys(seen).every((name) => ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'ACME_REGION'].includes(name))).toBe(true);
    }
  });

  it("asks before an untrusted server's tool, whatever its annotations say", async () => {
    const old = handle.mcp.status().find((s) => s.name === 'old')!;
    expect(old.tools.every((t) => t.needsApproval)).toBe(true);
    expect(acmeName('pid')).toBe('acme__pid');
    const acme = handle.mcp.status().find((s) => s.name === 'acme')!;
    expect(acme.tools.filter((t) => t.needsApproval).map((t) => t.tool)).toEqual(['write_note']);
    expect(await toolResult('call old__pid')).toBe(
      "Error: this tool needs the asker's approval, and there is no way to ask for it here. It was not run.",
    );
    expect(await toolResult('call acme__write_note {"text":"hi"}')).toMatch(/^Error: this tool needs the asker's approval/);
  });

  it("offers a server only where the operator's scope and the admins' /settings mcp_off allow", async () => {
    const services: CommandServices = {
      config,
      logger: silentLogger,
      engine: handle.engine,
      store: handle.store,
      speak: () => Promise.reject(new Error('no speech here')),
    };
    const replies: string[] = [];
    const admin = (workspaceId: string, channelId: string, options: Record<string, string>): CommandContext => ({
      platform: 'test',
      workspaceId,
      channelId,
      invocationId: 'i1',
      user: { id: 'admin', displayName: 'Ada', isAdmin: true },
      isDirect: false,
      options: new Map(Object.entries(options)),
      uploadLimitBytes: 1024,
      voiceMessages: false,
      defer: async () => {},
      reply: async (text) => void replies.push(text),
      replyStream: async () => {},
      upload: async () => {},
    });
    const servers = async (workspaceId: string, channelId: string) => {
      await adapter(workspaceId, channelId).send('hello');
      return [
        ...new Set(
          offeredTools()
            .filter((name) => name.includes('__'))
            .map((name) => name.split('__')[0]!),
        ),
      ].sort();
    };

    expect(await servers('guild-1', 'c1')).toEqual(['acme', 'everything', 'everything_http', 'old', 'web']);
    expect(await servers('guild-2', 'c1')).toEqual(['acme', 'everything', 'everything_http', 'old']);

    await runCommand(settings, admin('guild-1', 'c1', { scope: 'channel', mcp_off: 'acme, old' }), services);
    expect(replies.at(-1)).toContain('MCP servers off: acme, old');
    await runCommand(settings, admin('guild-1', 'c2', { scope: 'server', mcp_off: 'everything' }), services);
    expect(await servers('guild-1', 'c1')).toEqual(['everything_http', 'web']);
    expect(await servers('guild-1', 'c2')).toEqual(['acme', 'everything_http', 'old', 'web']);

    await runCommand(settings, admin('guild-1', 'c1', { scope: 'channel', mcp_off: 'none' }), services);
    expect(await servers('guild-1', 'c1')).toEqual(['acme', 'everything_http', 'old', 'web']);
    await runCommand(settings, admin('guild-1', 'c1', { scope: 'channel', mcp_off: 'jira' }), services);
    expect(replies.at(-1)).toBe(
      '"jira" is not an MCP server Herald knows. The servers configured are: acme, everything, web, old, everything_http, gone.',
    );
  });

  it('shows a server that is down as degraded on /readyz, still ready, and counts calls per tool on /metrics', async () => {
    await toolResult('call acme__pid');
    await toolResult('call acme__broken');
    const ready = await fetch(`${opsBase}/readyz`);
    expect(ready.status).toBe(200);
    const report = (await ready.json()) as { status: string; degraded: string[] };
    expect(report.status).toBe('ready');
    expect(report.degraded).toEqual([expect.stringMatching(/^mcp: degraded: gone (down|connecting)$/)]);
    const exposition = await (await fetch(`${opsBase}/metrics`)).text();
    expect(exposition).toMatch(/^herald_mcp_tool_calls_total\{server="acme",tool="pid",outcome="ok"\} [1-9]\d*$/m);
    expect(exposition).toMatch(/^herald_mcp_tool_calls_total\{server="acme",tool="broken",outcome="error"\} [1-9]\d*$/m);
    expect(exposition).toMatch(/^herald_mcp_tool_call_seconds_count\{server="acme",tool="pid"\} [1-9]\d*$/m);
  });
});
