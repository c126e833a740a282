import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadToolsModule } from '../../src/tools/load-tools-module.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { toolContext } from './context.ts';

const dir = mkdtempSync(join(tmpdir(), 'herald-tools-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function moduleFile(name: string, source: string): string {
  const path = join(dir, name);
  writeFileSync(path, source);
  return path;
}

describe('loadToolsModule', () => {
  it('loads an operator tool from a relative path and runs it', async () => {
    moduleFile(
      'weather.mjs',
      `export const tools = [{
        name: 'weather',
        description: 'Weather for a city.',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        handler: ({ city }, ctx) => 'Sunny in ' + city + ' for ' + ctx.userName,
      }];`,
    );
    const tools = await loadToolsModule('weather.mjs', dir);
    const registry = new ToolRegistry(tools);
    const result = await registry.execute({ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }, toolContext());
    expect(result.content).toBe('Sunny in Oslo for Alice');
  });

  it('accepts a default export', async () => {
    const path = moduleFile(
      'default.mjs',
      `export default [{ name: 'ping', description: 'Pong.', parameters: { type: 'object', properties: {} }, handler: () => 'pong' }];`,
    );
    expect((await loadToolsModule(path)).map((t) => t.name)).toEqual(['ping']);
  });

  it('names the module and the problem when it is unusable', async () => {
    await expect(loadToolsModule(join(dir, 'missing.mjs'))).rejects.toThrow(/TOOLS_MODULE .*missing\.mjs could not be loaded/);
    const notArray = moduleFile('object.mjs', 'export default { name: "x" };');
    await expect(loadToolsModule(notArray)).rejects.toThrow(/must export an array of tools/);
    const noHandler = moduleFile(
      'nohandler.mjs',
      `export const tools = [{ name: 'x', description: 'd', parameters: { type: 'object', properties: {} } }];`,
    );
    await expect(loadToolsModule(noHandler)).rejects.toThrow(/tool "x" needs a handler function/);
  });
});
