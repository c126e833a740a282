import { calculatorTool } from './calculator-tool.ts';
import { currentTimeTool } from './current-time-tool.ts';
import { pickRandomTool, rollDiceTool } from './dice-tool.ts';
import { recentMessagesTool } from './recent-messages-tool.ts';
import type { ToolDefinition } from './types.ts';

/** The tools every deployment has; none of them uses the network. */
export const builtinTools: readonly ToolDefinition[] = [currentTimeTool, calculatorTool, rollDiceTool, pickRandomTool, recentMessagesTool];
