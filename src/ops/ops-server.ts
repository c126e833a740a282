import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log/logger.ts';
import type { HealthRegistry } from './health.ts';
import type { Metrics } from './metrics.ts';

/**
 * Sees the request unchanged (the full path, prefix included) and owns the response. It may be async: a throw
 * or a rejected promise becomes a logged 500 (or a cut connection once headers are out).
 */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface OpsServerOptions {
  health: HealthRegistry;
  metrics: Metrics;
  logger: Logger;
  /** When set, /metrics answers 401 to any request without `Authorization: Bearer <metricsToken>`. */
  metricsToken?: string;
}

export interface CloseOptions {
  /** How long requests in progress may take before their connections are cut. Default 5000 ms. */
  graceMs?: number;
  /** Cuts the connections when it aborts, grace or not (pass the shutdown hook's signal). */
  signal?: AbortSignal;
}

/**
 * One HTTP server per process: /healthz, /readyz and /metrics, plus whatever platform adapters mount.
 *
 * Slack HTTP mode mounts Bolt's receiver instead of letting Bolt listen on a port of its own: build an
 * `HTTPReceiver` (its default endpoint is /slack/events), give it to `new App({ receiver })`, never call
 * `app.start()`, and mount `receiver.requestListener` under `/slack`. Bolt routes on the full path, which
 * mounted handlers receive unchanged. For a path under the prefix that Bolt does not serve, its listener
 * throws `HTTPReceiverDeferredRequestError` synchronously; catch it in the mounted handler and answer 404
 * (any other throw becomes a 500 here).
 */
export interface OpsServer {
  readonly server: Server;
  /** Serves every path equal to `pathPrefix` or below it (`/slack` serves `/slack/events`); longest prefix wins. */
  mount(pathPrefix: string, handler: RouteHandler): void;
  /** Resolves with the bound port (useful with port 0). Binds every interface unless `host` is given. */
  listen(port: number, host?: string): Promise<number>;
  /** Stops accepting connections, lets requests in progress finish within the grace, then cuts the rest. */
  close(options?: CloseOptions): Promise<void>;
}

const BUILT_IN = new Set(['/healthz', '/readyz', '/metrics']);

export function createOpsServer(options: OpsServerOptions): OpsServer {
  const { health, metrics, logger } = options;
  const metricsAllowed = bearerCheck(options.metricsToken);
  const mounts: { prefix: string; handler: RouteHandler }[] = [];

  const builtIn = async (path: string, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (path === '/healthz') return sendJson(res, 200, { status: 'ok', ...health.liveness() });
    if (path === '/readyz') {
      const report = await health.readiness();
      const reasons = [
        ...(report.shuttingDown ? ['shutting down'] : []),
        ...report.checks.filter((c) => c.critical && !c.ok).map((c) => `${c.name}: ${c.detail ?? 'failed'}`),
      ];
      const degraded = report.checks.filter((c) => !c.critical && !c.ok).map((c) => `${c.name}: ${c.detail ?? 'failed'}`);
      return sendJson(res, report.ready ? 200 : 503, { status: report.ready ? 'ready' : 'not ready', reasons, degraded, ...report });
    }
    if (!metricsAllowed(req.headers.authorization)) {
      res.setHeader('www-authenticate', 'Bearer');
      return sendJson(res, 401, { error: 'unauthorized' });
    }
    const body = await metrics.registry.metrics();
    res.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
    res.end(body);
  };

  const server = createServer((req, res) => {
    const path = pathOf(req);
    let handled: unknown;
    try {
      if (BUILT_IN.has(path)) {
        if (req.method !== 'GET' && req.method !== 'HEAD') {
          res.setHeader('allow', 'GET, HEAD');
          return sendJson(res, 405, { error: 'method not allowed' });
        }
        handled = builtIn(path, req, res);
      } else {
        const mount = mounts.find((m) => path === m.prefix || path.startsWith(`${m.prefix}/`));
        if (!mount) return sendJson(res, 404, { error: 'not found' });
        handled = mount.handler(req, res);
      }
    } catch (error) {
      return fail(req, res, error);
    }
    if (handled instanceof Promise) handled.catch((error: unknown) => fail(req, res, error));
  });

  function fail(req: IncomingMessage, res: ServerResponse, error: unknown): void {
    logger.error({ err: error, method: req.method, path: pathOf(req) }, 'HTTP handler failed');
    if (res.headersSent) res.destroy();
    else sendJson(res, 500, { error: 'internal error' });
  }

  return {
    server,
    mount(pathPrefix, handler) {
      const prefix = pathPrefix.replace(/\/+$/, '');
      if (!prefix.startsWith('/')) throw new Error(`mount prefix must start with "/" below the root (got ${JSON.stringify(pathPrefix)})`);
      if (BUILT_IN.has(prefix)) throw new Error(`${prefix} is served by the ops server itself`);
      if (mounts.some((m) => m.prefix === prefix)) throw new Error(`${prefix} is already mounted`);
      mounts.push({ prefix, handler });
      mounts.sort((a, b) => b.prefix.length - a.prefix.length);
    },
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen({ port, host }, () => {
          server.off('error', reject);
          resolve((server.address() as AddressInfo).port);
        });
      });
    },
    close(closeOptions = {}) {
      if (!server.listening) return Promise.resolve();
      const { graceMs = 5000, signal } = closeOptions;
      return new Promise((resolve) => {
        const cutAll = () => server.closeAllConnections();
        const cut = setTimeout(cutAll, graceMs);
        signal?.addEventListener('abort', cutAll, { once: true });
        server.close(() => {
          clearTimeout(cut);
          signal?.removeEventListener('abort', cutAll);
          resolve();
        });
        server.closeIdleConnections();
        if (signal?.aborted) cutAll();
      });
    },
  };
}

/** Whether an Authorization header carries the token; every request passes when there is none. Constant time. */
function bearerCheck(token: string | undefined): (header: string | undefined) => boolean {
  if (token === undefined) return () => true;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const expected = digest(token);
  return (header) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    return match !== null && timingSafeEqual(digest(match[1]!), expected);
  };
}

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`${JSON.stringify(body)}\n`);
}
