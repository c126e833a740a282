import type { HealthCheck } from '../ops/health.ts';
import type { McpHub } from './mcp-hub.ts';

/**
 * `/readyz`'s view of the MCP servers, registered as not critical: a server that is down degrades Herald (its tools
 * are not offered) but never makes it unready. Names states only, never an address or an error text.
 */
export function mcpHealthCheck(hub: McpHub): HealthCheck {
  return async () => {
    const servers = hub.states();
    const away = servers.filter((server) => server.state !== 'connected');
    if (away.length === 0) return { ok: true, detail: `${servers.length} connected` };
    return { ok: false, detail: `degraded: ${away.map((server) => `${server.name} ${server.state}`).join(', ')}` };
  };
}
