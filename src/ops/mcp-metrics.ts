import type { McpCallRecorder } from '../mcp/mcp-hub.ts';
import type { Metrics } from './metrics.ts';

/** Counts and times each MCP tool call in the Prometheus metrics. */
export function mcpMetricsRecorder(metrics: Metrics): McpCallRecorder {
  return ({ server, tool, outcome }, seconds) => {
    metrics.mcpToolCalls.inc({ server, tool, outcome });
    metrics.mcpToolSeconds.observe({ server, tool }, seconds);
  };
}
