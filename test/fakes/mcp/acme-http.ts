import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ACME_TOOLS, acmeServer, type AcmeListing } from './acme-tools.ts';

export interface AcmeHttp {
  /** The MCP endpoint: Streamable HTTP, or for `legacySse` the old GET stream (POSTs to it are refused with 405). */
  url: string;
  /** Every request's method and path, in order. */
  requests: { method: string; path: string; authorization?: string; protocolVersion?: string; sessionId?: string }[];
  /** Resolves with the next request to `path` (legacy: a call on POST /messages). */
  nextRequest(path: string): Promise<void>;
  /** Legacy: every GET stream open now starts an event that never ends, as a broken or hostile server might. */
  babble(): void;
  /** Sessions: serves `listing` from now on and tells every live session its tool list changed. */
  relist(listing: AcmeListing): void;
  /** Sessions: every live session sends `count` pings at once, as a flooding server might. */
  flood(count: number): void;
  /** Streamable HTTP: requests from now on are read and never answered, as by a server that hung. */
  hang(): void;
  close(): Promise<void>;
}

/**
 * The acme server over HTTP on 127.0.0.1: Streamable HTTP in stateless mode (a server and transport per request, as
 * the SDK documents) or, with `sessions`, stateful (a session id per client, ended by DELETE); or only the legacy
 * HTTP+SSE transport (GET /mcp opens the stream, POST /messages carries calls).
 */
export async function startAcmeHttp(options: { legacySse?: boolean; sessions?: boolean } = {}): Promise<AcmeHttp> {
  const requests: AcmeHttp['requests'] = [];
  const sessions = new Map<string, SSEServerTransport>();
  const streams = new Map<string, ServerResponse>();
  const stateful = new Map<string, { transport: StreamableHTTPServerTransport; server: Server }>();
  let listing: AcmeListing = () => ({ tools: ACME_TOOLS });
  const waiting: { path: string; resolve(): void }[] = [];
  let hung = false;
  const http = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const version = req.headers['mcp-protocol-version'];
    const sessionId = req.headers['mcp-session-id'];
    requests.push({
      method: req.method ?? '',
      path,
      ...(req.headers.authorization && { authorization: req.headers.authorization }),
      ...(typeof version === 'string' && { protocolVersion: version }),
      ...(typeof sessionId === 'string' && { sessionId }),
    });
    for (const waiter of waiting.filter((w) => w.path === path)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
    if (hung) return void req.resume();
    if (options.legacySse) void legacy(req, res, path, sessions, streams);
    else if (options.sessions) void withSessions(req, res, path, stateful, (cursor) => listing(cursor));
    else void streamable(req, res, path);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    nextRequest: (path) => new Promise((resolve) => waiting.push({ path, resolve })),
    babble: () => {
      for (const stream of streams.values()) babbleOn(stream);
    },
    relist: (next) => {
      listing = next;
      for (const { server } of stateful.values()) void server.sendToolListChanged();
    },
    flood: (count) => {
      for (const { server } of stateful.values()) {
        for (let i = 0; i < count; i += 1) void server.ping().catch(() => {});
      }
    },
    hang: () => {
      hung = true;
    },
    close: async () => {
      for (const transport of sessions.values()) await transport.close();
      for (const { transport } of stateful.values()) await transport.close();
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

async function withSessions(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  stateful: Map<string, { transport: StreamableHTTPServerTransport; server: Server }>,
  listing: AcmeListing,
): Promise<void> {
  if (path !== '/mcp') return void res.writeHead(404).end();
  const known = stateful.get(String(req.headers['mcp-session-id']));
  if (known) return known.transport.handleRequest(req, res);
  const server = acmeServer(listing);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => void stateful.set(id, { transport, server }),
    onsessionclosed: (id) => void stateful.delete(id),
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

/** Writes one event's data line, and never ends it, until the client goes away. */
function babbleOn(stream: ServerResponse): void {
  const line = Buffer.alloc(64 * 1024, 'x');
  stream.write('data: ');
  const more = () => {
    while (!stream.destroyed && stream.write(line));
    if (!stream.destroyed) stream.once('drain', more);
  };
  more();
}

async function legacy(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  sessions: Map<string, SSEServerTransport>,
  streams: Map<string, ServerResponse>,
): Promise<void> {
  if (path === '/mcp' && req.method === 'GET') {
    const transport = new SSEServerTransport('/messages', res);
    sessions.set(transport.sessionId, transport);
    streams.set(transport.sessionId, res);
    res.on('close', () => {
      sessions.delete(transport.sessionId);
      streams.delete(transport.sessionId);
    });
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
