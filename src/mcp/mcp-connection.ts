import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { HeraldError } from '../errors.ts';
import type { Logger } from '../log/logger.ts';
import { boundedFetch, EVENT_TOO_LARGE, TOO_LARGE } from './bounded-fetch.ts';
import type { McpServerConfig } from './mcp-config.ts';
import { ServerRequestGuard } from './server-request-guard.ts';

export type McpServerState = 'connecting' | 'connected' | 'restarting' | 'down' | 'closed';

/** Largest one message (stdio), one call's response or one event on a stream (HTTP) a server may send; past it the connection is dropped. */
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
const MAX_TOOLS = 128;
/** A server's own requests (pings…) Herald answers at a time; past it the server is flooding and is dropped. */
const MAX_SERVER_REQUESTS = 64;
/** Pages of a tool listing read at most: a server whose cursor never ends cannot hold a connection forever. */
const MAX_PAGES = 16;
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 30_000;
const STDERR_TAIL_CHARS = 500;
/** Longest a server may take to start, answer `initialize` and list its tools. */
const CONNECT_TIMEOUT_MS = 30_000;
/** Longest closing waits for a Streamable HTTP server to end its session; one that hung is left to expire it. */
const SESSION_END_MS = 1_500;

export interface ConnectionEvents {
  /** The server's tools, after each (re)connection and each change it announced. */
  tools(tools: Tool[]): void;
}

/**
 * One MCP server: connects in the background with retries (backoff from 250 ms to 30 s), restarts a stdio server
 * that exited, and hands calls to whichever connection is current. A call waits for a (re)connection in progress.
 */
export class McpConnection {
  readonly config: McpServerConfig;
  #state: McpServerState = 'connecting';
  #client: Client | undefined;
  /** Aborted when the current connection drops, failing the calls it was running at once. */
  #clientDropped = new AbortController();
  #lastError: string | undefined;
  #attempt = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #waiters = new Set<() => void>();
  #stderrTail = '';
  #dropReason: string | undefined;
  /** Why the connection dropped, as the model may read it: never the server's own output, which may hold secrets. */
  #dropNotice = 'stopped';
  #relisting = false;
  #relistAgain = false;
  #firstSettled: Promise<void>;
  #settleFirst!: () => void;
  readonly #logger: Logger;
  readonly #events: ConnectionEvents;

  constructor(config: McpServerConfig, logger: Logger, events: ConnectionEvents) {
    this.config = config;
    this.#logger = logger.child({ mcpServer: config.name });
    this.#events = events;
    this.#firstSettled = new Promise((resolve) => {
      this.#settleFirst = resolve;
    });
  }

  get state(): McpServerState {
    return this.#state;
  }

  /** Why the last connection attempt failed or the server stopped, in one line, for the operator (it may quote the server). */
  get lastError(): string | undefined {
    return this.#lastError;
  }

  /** Settles once the first connection attempt succeeded or failed. */
  firstAttempt(): Promise<void> {
    return this.#firstSettled;
  }

  start(): void {
    void this.#connect();
  }

  /** Calls a tool by its own name, waiting up to the call's own deadline for a connection. */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const client = await this.#connected(signal);
    const dropped = this.#clientDropped.signal;
    try {
      return (await client.callTool({ name: tool, arguments: args }, undefined, {
        signal: AbortSignal.any([signal, dropped]),
        timeout: this.config.timeoutMs,
      })) as CallToolResult;
    } catch (error) {
      if (signal.aborted) throw error;
      if (dropped.aborted || this.#client !== client || this.#state !== 'connected') {
        const again = this.config.transport === 'stdio' ? 'restarted' : 'reconnected';
        throw new HeraldError(`the MCP server "${this.config.name}" ${this.#dropNotice}; it is being ${again}, so a retry may work`, {
          code: 'mcp_stopped',
        });
      }
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        throw new HeraldError(`the MCP server "${this.config.name}" did not answer within ${this.config.timeoutMs / 1000} s`, {
          code: 'mcp_timeout',
        });
      }
      throw error;
    }
  }

  async close(): Promise<void> {
    this.#setState('closed');
    clearTimeout(this.#retryTimer);
    this.#wake();
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => {});
  }

  async #connect(): Promise<void> {
    if (this.#state === 'closed') return;
    const transport = new ServerRequestGuard(this.#transport(), MAX_SERVER_REQUESTS, () => this.#flooded(client));
    const client = new Client(
      { name: 'herald', version: '1' },
      {
        capabilities: {},
        listChanged: {
          // Listed here rather than by the SDK, which reads only the first page and without the bounds.
          tools: { autoRefresh: false, onChanged: () => void this.#relist(client) },
        },
      },
    );
    try {
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
      const tools = await this.#listTools(client);
      if (this.#isClosed()) {
        await client.close();
        return;
      }
      this.#client = client;
      this.#clientDropped = new AbortController();
      this.#attempt = 0;
      this.#lastError = undefined;
      client.onclose = () => this.#dropped(client);
      client.onerror = (error) => {
        // Past a size limit the stream is broken (and an answer's call left waiting): dropping the connection fails
        // its calls at once and connects afresh.
        const reason = oversize(error.message);
        if (reason) {
          this.#dropReason = reason;
          this.#dropped(client);
          void client.close();
        }
      };
      this.#events.tools(tools);
      this.#setState('connected');
      this.#logger.info({ tools: tools.length }, 'MCP server connected');
    } catch (error) {
      await client.close().catch(() => {});
      if (this.#isClosed()) return;
      this.#lastError = `${(error as Error).message.split('\n')[0]!.slice(0, 200)}${this.#tail()}`;
      this.#logger.warn({ err: error, attempt: this.#attempt + 1 }, 'MCP server could not be connected; retrying');
      this.#setState('down');
      this.#retry();
    } finally {
      this.#settleFirst();
    }
  }

  /** Lists the tools again after the server announced a change: one listing at a time, and one more for changes meanwhile. */
  async #relist(client: Client): Promise<void> {
    if (this.#relisting) {
      this.#relistAgain = true;
      return;
    }
    this.#relisting = true;
    try {
      do {
        this.#relistAgain = false;
        const tools = await this.#listTools(client);
        if (this.#client === client) this.#events.tools(tools);
      } while (this.#relistAgain && this.#client === client);
    } catch (error) {
      this.#logger.warn({ err: error }, 'MCP server announced new tools, and listing them failed');
    } finally {
      this.#relisting = false;
    }
  }

  async #listTools(client: Client): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: CONNECT_TIMEOUT_MS });
      tools.push(...page.tools);
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor && tools.length < MAX_TOOLS && pages < MAX_PAGES);
    if (tools.length > MAX_TOOLS || cursor) {
      this.#logger.warn({ listed: tools.length, pages }, `MCP server offers too many tools; the first ${Math.min(tools.length, MAX_TOOLS)} are used`);
    }
    return tools.slice(0, MAX_TOOLS);
  }

  #dropped(client: Client): void {
    if (this.#client !== client || this.#state === 'closed') return;
    this.#client = undefined;
    this.#clientDropped.abort();
    this.#dropNotice = this.#dropReason ?? 'stopped';
    this.#lastError = `${this.#dropNotice}${this.#tail()}`;
    this.#dropReason = undefined;
    this.#logger.warn({ reason: this.#lastError }, 'MCP server connection closed; restarting');
    this.#setState('restarting');
    this.#retry();
  }

  #flooded(client: Client): void {
    if (this.#client !== client) return;
    this.#dropReason = `sent more than ${MAX_SERVER_REQUESTS} requests of its own at once`;
    this.#dropped(client);
    void client.close();
  }

  #retry(): void {
    const delay = Math.min(FIRST_RETRY_MS * 2 ** this.#attempt, MAX_RETRY_MS);
    this.#attempt += 1;
    this.#retryTimer = setTimeout(() => void this.#connect(), delay);
    this.#retryTimer.unref();
  }

  #transport(): Transport {
    const { config } = this;
    if (config.transport === 'stdio') {
      this.#stderrTail = '';
      const transport = new StdioClientTransport({
        command: config.command,
        args: config.args,
        env: config.env,
        ...(config.cwd && { cwd: config.cwd }),
        stderr: 'pipe',
        maxBufferSize: MAX_MESSAGE_BYTES,
      });
      transport.stderr?.on('data', (chunk: Buffer) => {
        this.#stderrTail = (this.#stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
      });
      return transport;
    }
    const options = { requestInit: { headers: config.headers }, fetch: boundedFetch(MAX_MESSAGE_BYTES) };
    if (config.transport === 'sse') return new SSEClientTransport(config.url, options);
    return new FallbackHttpTransport(config.url, options, this.#logger);
  }

  async #connected(signal: AbortSignal): Promise<Client> {
    while (!this.#client) {
      if (this.#state === 'closed') throw new HeraldError(`the MCP server "${this.config.name}" is shut down`, { code: 'mcp_closed' });
      if (signal.aborted) throw signal.reason;
      if (this.#state === 'down' && this.#attempt > 1) {
        throw new HeraldError(`the MCP server "${this.config.name}" cannot be reached right now`, { code: 'mcp_unreachable' });
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener('abort', done);
          this.#waiters.delete(done);
          resolve();
        };
        this.#waiters.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
    return this.#client;
  }

  #isClosed(): boolean {
    return this.#state === 'closed';
  }

  #setState(state: McpServerState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#wake();
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }

  #tail(): string {
    const line = this.#stderrTail.trim().split('\n').at(-1)?.trim();
    return line ? ` (its last words: ${line.slice(0, 200)})` : '';
  }
}

/** Why a transport error means the server sent too much, as the model may read it; undefined for any other error. */
function oversize(message: string): string | undefined {
  const megabytes = MAX_MESSAGE_BYTES / 1024 / 1024;
  if (message.includes(EVENT_TOO_LARGE)) return `sent an event of more than ${megabytes} MB on its stream`;
  if (message.includes('exceeded maximum size') || message.includes(TOO_LARGE)) return `sent more than ${megabytes} MB in one answer`;
  return undefined;
}

interface HttpOptions {
  requestInit: RequestInit;
  fetch: (url: string | URL, init?: RequestInit) => Promise<Response>;
}

/**
 * Streamable HTTP, or legacy HTTP+SSE for a server that refuses it: the spec's backwards-compatible client tries a
 * POST first and falls back to the old GET stream when that is answered 4xx.
 */
class FallbackHttpTransport implements Transport {
  #inner: Transport;
  #fellBack = false;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  readonly #url: URL;
  readonly #options: HttpOptions;
  readonly #logger: Logger;

  constructor(url: URL, options: HttpOptions, logger: Logger) {
    this.#url = url;
    this.#options = options;
    this.#logger = logger;
    this.#inner = this.#wire(new StreamableHTTPClientTransport(url, options));
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  async send(message: Parameters<Transport['send']>[0], options?: Parameters<Transport['send']>[1]): Promise<void> {
    try {
      await this.#inner.send(message, options);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const isInitialize = 'method' in message && message.method === 'initialize';
      if (this.#fellBack || !isInitialize || typeof code !== 'number' || code < 400 || code >= 500) throw error;
      this.#fellBack = true;
      this.#logger.info({ status: code }, 'MCP server does not speak Streamable HTTP; using legacy SSE');
      const refused = this.#inner;
      refused.onclose = undefined;
      refused.onerror = undefined;
      await refused.close().catch(() => {});
      this.#inner = this.#wire(new SSEClientTransport(this.#url, this.#options));
      await this.#inner.start();
      await this.#inner.send(message, options);
    }
  }

  /** Ends a Streamable HTTP session with a DELETE, as the spec asks of clients, before closing. */
  async close(): Promise<void> {
    const inner = this.#inner;
    if (inner instanceof StreamableHTTPClientTransport && inner.sessionId) {
      let timer: NodeJS.Timeout | undefined;
      const ended = inner.terminateSession().catch((error: unknown) => {
        this.#logger.info({ err: error }, 'MCP server did not end its session');
      });
      await Promise.race([ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, SESSION_END_MS)))]);
      clearTimeout(timer);
    }
    await inner.close();
  }

  #wire(transport: Transport): Transport {
    transport.onclose = () => this.onclose?.();
    transport.onerror = (error) => this.onerror?.(error);
    transport.onmessage = (message, extra) => this.onmessage?.(message, extra);
    return transport;
  }
}
