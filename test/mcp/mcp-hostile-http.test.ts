import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { McpServerConfig } from '../../src/mcp/mcp-config.ts';
import { McpHub } from '../../src/mcp/mcp-hub.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { startAcmeHttp, type AcmeHttp } from '../fakes/mcp/acme-http.ts';
import { silentLogger } from '../helpers/logger.ts';

let live: AcmeHttp;
let dead: AcmeHttp;
let churning: AcmeHttp;
let flooding: AcmeHttp;

beforeAll(async () => {
  [live, dead, churning, flooding] = await Promise.all([1, 2, 3, 4].map(() => startAcmeHttp({ sessions: true })));
});

afterAll(async () => {
  await Promise.all([live?.close(), dead?.close(), churning?.close(), flooding?.close()]);
});

function hub(url: string, registry = new ToolRegistry()): McpHub {
  const server: McpServerConfig = { name: 'acme', transport: 'http', url: new URL(url), headers: {}, trusted: true, scope: [], timeoutMs: 5000 };
  return new McpHub({ servers: [server], logger: silentLogger, registry });
}

function tool(name: string): Tool {
  return { name, description: `The tool ${name}.`, inputSchema: { type: 'object', properties: { n: { type: 'integer' } } } };
}

/** The first `count` of 128 tools named `g<generation>_<i>`. */
function generation(n: number, count = 128): Tool[] {
  return Array.from({ length: count }, (_, i) => tool(`g${n}_${i}`));
}

describe('MCP over Streamable HTTP, against a hostile or broken server', () => {
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

  it('reads at most 16 pages of a listing that never ends, and takes at most 512 tool names from a server that keeps renaming', async () => {
    churning.relist((cursor) => ({ tools: [tool(`page${cursor ?? 0}`)], nextCursor: String(Number(cursor ?? 0) + 1) }));
    const registry = new ToolRegistry();
    const mcp = hub(churning.url, registry);
    mcp.start();
    await mcp.firstAttempts();
    const listed = () => mcp.status()[0]!.tools.map((t) => t.tool);
    expect(mcp.status()[0]!.state).toBe('connected');
    expect(listed()).toEqual(Array.from({ length: 16 }, (_, i) => `page${i}`));

    // 16 names so far; three generations of 128 new ones bring 400, and of a fourth only 112 more are taken.
    for (const n of [1, 2, 3]) {
      churning.relist(() => ({ tools: generation(n) }));
      await vi.waitFor(() => expect(listed()).toEqual(generation(n).map((t) => t.name)));
    }
    churning.relist(() => ({ tools: generation(4) }));
    await vi.waitFor(() => expect(listed()).toEqual(generation(4, 112).map((t) => t.name)));
    // Only what the server lists now is in the registry.
    expect(registry.list()).toHaveLength(112);
    // Names it had before are still its own.
    churning.relist(() => ({ tools: generation(1) }));
    await vi.waitFor(() => expect(listed()).toEqual(generation(1).map((t) => t.name)));
    // The call reaches the server (which has no such tool of its own to run).
    await expect(mcp.call('acme', 'g1_7', { n: 1 }, AbortSignal.timeout(5000))).rejects.toThrow('unknown tool g1_7');
    expect(registry.list()).toHaveLength(128);
    await mcp.close();
  });

  it('drops a server that floods it with requests of its own, and connects afresh', async () => {
    const mcp = hub(flooding.url);
    mcp.start();
    expect(await mcp.call('acme', 'pid', {}, AbortSignal.timeout(5000))).toMatch(/^pid \d+$/);
    const first = flooding.requests.find((r) => r.sessionId)!.sessionId;
    flooding.flood(1000);
    await vi.waitFor(() => expect(flooding.requests).toContainEqual(expect.objectContaining({ method: 'DELETE', sessionId: first })));
    expect(await mcp.call('acme', 'pid', {}, AbortSignal.timeout(5000))).toMatch(/^pid \d+$/);
    expect(flooding.requests.some((r) => r.sessionId && r.sessionId !== first)).toBe(true);
    await mcp.close();
  });
});
