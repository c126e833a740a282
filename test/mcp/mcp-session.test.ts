import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../src/mcp/mcp-config.ts';
import { McpHub } from '../../src/mcp/mcp-hub.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { startAcmeHttp, type AcmeHttp } from '../fakes/mcp/acme-http.ts';
import { silentLogger } from '../helpers/logger.ts';

let live: AcmeHttp;
let dead: AcmeHttp;

beforeAll(async () => {
  [live, dead] = await Promise.all([startAcmeHttp({ sessions: true }), startAcmeHttp({ sessions: true })]);
});

afterAll(async () => {
  await Promise.all([live?.close(), dead?.close()]);
});

function hub(url: string): McpHub {
  const server: McpServerConfig = { name: 'acme', transport: 'http', url: new URL(url), headers: {}, trusted: true, scope: [], timeoutMs: 5000 };
  return new McpHub({ servers: [server], logger: silentLogger, registry: new ToolRegistry() });
}

describe('MCP Streamable HTTP sessions', () => {
  it('ends its session with a DELETE on shutdown, and does not hang on a server that stopped answering', async () => {
    const mcp = hub(live.url);
    mcp.start();
    expect(await mcp.call('acme', 'pid', {}, AbortSignal.timeout(5000))).toMatch(/^pid \d+$/);
    const session = live.requests.find((r) => r.method === 'POST' && r.sessionId)?.sessionId;
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    await mcp.close();
    expect(live.requests.filter((r) => r.method === 'DELETE')).toEqual([expect.objectContaining({ path: '/mcp', sessionId: session })]);

    const stuck = hub(dead.url);
    stuck.start();
    await stuck.firstAttempts();
    expect(stuck.status()[0]!.state).toBe('connected');
    dead.hang();
    const started = performance.now();
    await stuck.close();
    expect(performance.now() - started).toBeLessThan(3000);
    expect(dead.requests.at(-1)).toEqual(expect.objectContaining({ method: 'DELETE', sessionId: expect.any(String) }));
  });
});
