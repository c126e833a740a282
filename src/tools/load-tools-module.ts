import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HeraldError } from '../errors.ts';
import { toolProblem } from './registry.ts';
import type { ToolDefinition } from './types.ts';

/**
 * Imports an operator's tools module (TOOLS_MODULE): an ES module whose default export, or export named
 * `tools`, is an array of tool definitions ({ name, description, parameters, handler }). Relative paths
 * are from the working directory. Fails with the module path and the first problem found.
 */
export async function loadToolsModule(path: string, cwd = process.cwd()): Promise<ToolDefinition[]> {
  const file = isAbsolute(path) ? path : resolve(cwd, path);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new HeraldError(`TOOLS_MODULE ${path} could not be loaded: ${(error as Error).message}`, { code: 'tools_module', cause: error });
  }
  const tools = module.tools ?? module.default;
  if (!Array.isArray(tools)) {
    throw new HeraldError(`TOOLS_MODULE ${path} must export an array of tools (as default or as "tools")`, { code: 'tools_module' });
  }
  for (const tool of tools) {
    const problem = toolProblem(tool);
    if (problem) throw new HeraldError(`TOOLS_MODULE ${path}: ${problem}`, { code: 'tools_module' });
  }
  return tools as ToolDefinition[];
}
