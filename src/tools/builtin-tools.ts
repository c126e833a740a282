import { calculatorTool } from './calculator-tool.ts';
import { currentTimeTool } from './current-time-tool.ts';
import { pickRandomTool, rollDiceTool } from './dice-tool.ts';
import type { ToolDefinition } from './types.ts';
import { workspaceSearchTool } from './workspace-search-tool.ts';

/** The tools every deployment has; none of them uses the network beyond the chat platform's own API. */
export const builtinTools: readonly ToolDefinition[] = [currentTimeTool, calculatorTool, rollDiceTool, pickRandomTool, workspaceSearchTool];
