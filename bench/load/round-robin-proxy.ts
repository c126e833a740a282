import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A load balancer on loopback: each request goes to the next upstream in turn. Like a balancer without retries,
 * an upstream that refuses the connection or drops it is answered with 502, so the sender's own retry decides
 * what happens next. Each response says which upstream served it in X-Served-By (its index).
 */
export interface RoundRobinProxy {
  url: string;
  /** Upstream base URLs (http://host:port), by index; replace one to stand in a new process. */
  upstreams: string[];
  /** Requests each upstream answered, and those that ended in a 502 from the proxy. */
  served: number[];
  failed: number[];
  close(): Promise<void>;
}

export async function startRoundRobinProxy(upstreams: string[]): Promise<RoundRobinProxy> {
  let next = 0;
  const served = upstreams.map(() => 0);
  const failed = upstreams.map(() => 0);
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const index = next;
    next = (next + 1) % upstreams.length;
    const target = new URL(req.url ?? '/', upstreams[index]);
    const upstream = request(target, { method: req.method, headers: req.headers }, (answer) => {
      served[index]! += 1;
      res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'x-served-by': String(index) });
      answer.pipe(res);
    });
    upstream.on('error', () => {
      failed[index]! += 1;
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
    served,
    failed,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
