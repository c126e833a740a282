import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { acmeServer } from './acme-tools.ts';

/** `node test/fakes/mcp/acme-stdio.ts`: the acme server over stdio, as an operator's MCP server runs. */
await acmeServer().connect(new StdioServerTransport());
