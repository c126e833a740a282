import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A load balancer on loopback: each request goes to the next upstream in turn. Like a balancer without retries,
 * an upstream that refuses the connection or drops it is answered with 502, so the sender's own retry decides
 * what happens next; as nginx does by default (max_fails=1, fail_timeout=10s), that upstream is then passed over
 * for ten seconds. Each response says which upstream served it in X-Served-By (its index).
 */
export interface RoundRobinProxy {
  url: string;
  /** Upstream base URLs (http://host:port), by index; replace one to stand in a new process. */
  upstreams: string[];
  /** Requests to each upstream that ended in a 502 from the proxy. */
  failed: number[];
  close(): Promise<void>;
}

const FAIL_TIMEOUT_MS = 10_000;

export async function startRoundRobinProxy(upstreams: string[]): Promise<RoundRobinProxy> {
  let next = 0;
  const failed = upstreams.map(() => 0);
  const failedAt = upstreams.map(() => Number.NEGATIVE_INFINITY);
  /** The next upstream in turn that has not failed lately; the next in turn when all have. */
  const pick = () => {
    const now = performance.now();
    const order = upstreams.map((_, i) => (next + i) % upstreams.length);
    const index = order.find((i) => now - failedAt[i]! >= FAIL_TIMEOUT_MS) ?? next;
    next = (index + 1) % upstreams.length;
    return index;
  };
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const index = pick();
    const target = new URL(req.url ?? '/', upstreams[index]);
    const upstream = request(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'x-served-by': String(index) });
      answer.pipe(res);
    });
    upstream.on('error', () => {
      failed[index]! += 1;
      failedAt[index] = performance.now();
      if (res.headersSent) res.destroy();
      else res.writeHead(502, { 'x-served-by': String(index) }).end('bad gateway');
    });
    req.pipe(upstream);
  };
  const server = createServer(forward);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    upstreams,
    failed,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
