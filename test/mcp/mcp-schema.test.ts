import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { readMcpConfig, type McpServerConfig } from '../../src/mcp/mcp-config.ts';
import { mcpTool, type BuiltTool } from '../../src/mcp/mcp-tool.ts';
import { simplifySchema } from '../../src/mcp/simplify-schema.ts';
import { ToolNames } from '../../src/mcp/tool-names.ts';

const dir = mkdtempSync(join(tmpdir(), 'herald-mcp-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function configFile(content: unknown): string {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('MCP_CONFIG', () => {
  it("reads the common shape with Herald's keys, and names the first problem of a bad file", () => {
    const path = configFile({
      mcpServers: {
        files: { command: 'mcp-files', args: ['--root', '/srv'], env: { TOKEN: '${FILES_TOKEN}' }, scope: ['discord:1/2', 'slack:*/C9', 'cli'] },
        docs: { url: 'https://docs.example/mcp', headers: { 'x-key': 'k' }, trusted: true, timeoutSeconds: 5 },
        legacy: { type: 'sse', url: 'http://127.0.0.1:9/sse' },
        off: { command: 'x', disabled: true },
      },
    });
    const servers = readMcpConfig(path, { FILES_TOKEN: 'abc' });
    expect(servers.map((s) => [s.name, s.transport, s.trusted, s.timeoutMs])).toEqual([
      ['files', 'stdio', false, 20_000],
      ['docs', 'http', true, 5000],
      ['legacy', 'sse', false, 20_000],
    ]);
    expect(servers[0]).toMatchObject({
      env: { TOKEN: 'abc' },
      scope: [{ platform: 'discord', workspaceId: '1', channelId: '2' }, { platform: 'slack', channelId: 'C9' }, { platform: 'cli' }],
    });

    const problems = [
      [{ mcpServers: { files: { command: 'x', env: { T: '${NOPE}' } } } }, /server "files" env T names \$\{NOPE\}, which is not set/],
      [{ mcpServers: { 'two words': { command: 'x' } } }, /server name "two words" must be 1-32 letters/],
      [{ mcpServers: { files: { command: 'x', trust: true } } }, /server "files": Unrecognized key: "trust"/],
      [{ mcpServers: { files: { command: 'x', scope: ['discord:1/2/3'] } } }, /scope.0: a place such as/],
      [{ mcpServers: { web: { url: 'file:///etc/passwd' } } }, /server "web": url/],
      ['{ not json', /cannot be read as JSON/],
    ] as const;
    for (const [content, message] of problems) {
      expect(() => readMcpConfig(configFile(content), {})).toThrow(message);
    }
  });
});

describe('simplifySchema', () => {
  it('walks a hostile, self-referencing schema in bounded time and size', () => {
    const wide: Record<string, object> = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [`p${i}`, { $ref: '#', description: 'd'.repeat(5000) }]),
    );
    const started = performance.now();
    wide.p0 = { anyOf: [{ $ref: '#' }, { $ref: '#' }] };
    const { schema, notes } = simplifySchema({ type: 'object', properties: wide });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(JSON.stringify(schema).length).toBeLessThanOrEqual(24_000);
    expect(Object.keys(schema.properties)).toHaveLength(64);
    expect(notes).toEqual(
      expect.arrayContaining([
        'arguments: only the first 64 of 200 properties are shown',
        expect.stringMatching(/the schema is too large/),
        expect.stringMatching(/parameters are shown without descriptions/),
      ]),
    );
  });

  it('shows a union of types as its first, naming the others, and keeps enums of one type', () => {
    const { schema } = simplifySchema({
      type: 'object',
      properties: {
        id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        mode: { oneOf: [{ const: 'fast' }, { const: 'slow' }] },
        tags: { type: 'array', items: { allOf: [{ type: 'string' }, { description: 'a tag' }] } },
      },
    });
    expect(schema.properties).toEqual({
      id: { type: 'string', description: '(or integer)' },
      mode: { type: 'string', enum: ['fast', 'slow'] },
      tags: { type: 'array', items: { type: 'string', description: 'a tag' } },
    });
  });
});

describe('ToolNames', () => {
  it('gives every tool its own valid name, the same one each time', () => {
    const names = new ToolNames((name) => name === 'taken__tool');
    const long = 'x'.repeat(80);
    const mapped = [
      names.nameOf('srv', 'a.b'),
      names.nameOf('srv', 'a_b'),
      names.nameOf('srv', 'a b'),
      names.nameOf('taken', 'tool'),
      names.nameOf('srv', long),
      names.nameOf('srv', `${long}y`),
    ];
    for (const name of mapped) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(new Set(mapped).size).toBe(mapped.length);
    expect(mapped[1]).toBe('srv__a_b');
    expect(names.nameOf('srv', 'a.b')).toBe(mapped[0]);
  });
});

describe('MCP tool arguments', () => {
  it('are checked against the schema the tool was listed with, and nothing of the schema is kept once the tool is gone', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const server: McpServerConfig = { name: 'acme', transport: 'stdio', command: 'x', args: [], env: {}, trusted: false, scope: [], timeoutMs: 1000 };
    const build = (maximum: number) => {
      const properties = { n: { type: 'integer', maximum } };
      const built = mcpTool({
        server,
        tool: { name: 'count', inputSchema: { type: 'object', properties } },
        name: 'acme__count',
        isUp: () => true,
        call: async () => 'counted',
      });
      return { built, schema: new WeakRef(properties) };
    };
    const listed = build(5);
    const relisted = build(7);
    const validate = (tool: BuiltTool, n: number) => tool.definition.validate!({ n });
    expect(validate(listed.built, 6)).toEqual(['arguments/n must be <= 5']);
    expect(validate(relisted.built, 6)).toEqual([]);
    expect(validate(relisted.built, 8)).toEqual(['arguments/n must be <= 7']);
    // The first listing is replaced: once nothing holds its tool, its schema goes too.
    listed.built = undefined as never;
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(listed.schema.deref()).toBeUndefined();
    expect(relisted.schema.deref()).toBeDefined();
  });
});
