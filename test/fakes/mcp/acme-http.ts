import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { acmeServer } from './acme-tools.ts';

export interface AcmeHttp {
  /** The MCP endpoint: Streamable HTTP, or for `legacySse` the old GET stream (POSTs to it are refused with 405). */
  url: string;
  /** Every request's method and path, in order. */
  requests: { method: string; path: string; authorization?: string; protocolVersion?: string }[];
  close(): Promise<void>;
}

/**
 * The acme server over HTTP on 127.0.0.1: Streamable HTTP in stateless mode (a server and transport per request, as
 * the SDK documents), or only the legacy HTTP+SSE transport (GET /mcp opens the stream, POST /messages carries calls).
 */
export async function startAcmeHttp(options: { legacySse?: boolean } = {}): Promise<AcmeHttp> {
  const requests: AcmeHttp['requests'] = [];
  const sessions = new Map<string, SSEServerTransport>();
  const http = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const version = req.headers['mcp-protocol-version'];
    requests.push({
      method: req.method ?? '',
      path,
      ...(req.headers.authorization && { authorization: req.headers.authorization }),
      ...(typeof version === 'string' && { protocolVersion: version }),
    });
    void (options.legacySse ? legacy(req, res, path, sessions) : streamable(req, res, path));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    close: async () => {
      for (const transport of sessions.values()) await transport.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

async function streamable(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  if (path !== '/mcp') return void res.writeHead(404).end();
  if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
  const server = acmeServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

async function legacy(req: IncomingMessage, res: ServerResponse, path: string, sessions: Map<string, SSEServerTransport>): Promise<void> {
  if (path === '/mcp' && req.method === 'GET') {
    const transport = new SSEServerTransport('/messages', res);
    sessions.set(transport.sessionId, transport);
    res.on('close', () => sessions.delete(transport.sessionId));
    await acmeServer().connect(transport);
    return;
  }
  if (path === '/messages' && req.method === 'POST') {
    const session = sessions.get(new URL(req.url ?? '/', 'http://localhost').searchParams.get('sessionId') ?? '');
    if (!session) return void res.writeHead(404).end();
    await session.handlePostMessage(req, res);
    return;
  }
  res.writeHead(405).end();
}
