import { createHmac } from 'node:crypto';
import { Writable } from 'node:stream';
import { HTTPReceiver, HTTPReceiverDeferredRequestError, LogLevel } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import { HealthRegistry } from '../../src/ops/health.ts';
import { createMetrics } from '../../src/ops/metrics.ts';
import { createOpsServer, type OpsServer } from '../../src/ops/ops-server.ts';

const servers: OpsServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close({ graceMs: 0 })));
});

async function start(options: { shuttingDown?: () => boolean; metricsToken?: string } = {}) {
  const logLines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ level: 'info', secrets: [], destination });
  const health = new HealthRegistry({ isShuttingDown: options.shuttingDown });
  const metrics = createMetrics({ defaultMetrics: false });
  const ops = createOpsServer({ health, metrics, logger, metricsToken: options.metricsToken });
  servers.push(ops);
  const port = await ops.listen(0, '127.0.0.1');
  return { ops, health, metrics, logLines, base: `http://127.0.0.1:${port}` };
}

/** Counts requests reaching their handler: `all` resolves once `count` have. */
function arrivals(count: number): { one(): void; all: Promise<void> } {
  let seen = 0;
  let done!: () => void;
  const all = new Promise<void>((resolve) => {
    done = resolve;
  });
  return {
    one: () => {
      if (++seen === count) done();
    },
    all,
  };
}

describe('ops server', () => {
  it('serves liveness, readiness with every check, and 503 with the reason when a critical check fails', async () => {
    const { health, base } = await start();
    let storeUp = true;
    health.register(
      'store',
      async () => {
        if (storeUp) return { ok: true };
        // What a Redis client throws: its message names the internal address.
        throw Object.assign(new Error('connect ECONNREFUSED 10.20.30.40:6379'), { code: 'ECONNREFUSED' });
      },
      { critical: true },
    );
    health.register('discord', async () => ({ ok: true, detail: 'gateway connected' }), { critical: true });

    const live = await fetch(`${base}/healthz`);
    expect(live.status).toBe(200);
    expect(live.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await live.json()).toMatchObject({ status: 'ok', shuttingDown: false });

    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: 'ready',
      reasons: [],
      checks: [
        { name: 'store', ok: true, critical: true },
        { name: 'discord', ok: true, critical: true, detail: 'gateway connected' },
      ],
    });

    storeUp = false;
    const notReady = await fetch(`${base}/readyz`);
    expect(notReady.status).toBe(503);
    const body = await notReady.text();
    expect(JSON.parse(body)).toMatchObject({
      status: 'not ready',
      reasons: ['store: failed (ECONNREFUSED)'],
      checks: [
        { name: 'store', ok: false },
        { name: 'discord', ok: true },
      ],
    });
    expect(body).not.toContain('10.20.30.40');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });

  it('answers 503 "shutting down" on /readyz and still 200 on /healthz while draining', async () => {
    let shuttingDown = false;
    const { health, base } = await start({ shuttingDown: () => shuttingDown });
    health.register('store', async () => ({ ok: true }), { critical: true });
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    shuttingDown = true;
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'not ready', shuttingDown: true, reasons: ['shutting down'] });
    const live = await fetch(`${base}/healthz`);
    expect(live.status).toBe(200);
    expect(await live.json()).toMatchObject({ status: 'ok', shuttingDown: true });
  });

  it('serves /metrics in the Prometheus text format', async () => {
    const { metrics, base } = await start();
    metrics.requests.inc({ capability: 'describe', platform: 'slack', outcome: 'ok' });
    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(await response.text()).toContain('herald_requests_total{capability="describe",platform="slack",outcome="ok"} 1');
  });

  it('keeps /metrics private with METRICS_TOKEN: 401 without the bearer token or with another, the metrics with it', async () => {
    const token = 'metrics-secret-0123456789';
    const { metrics, base } = await start({ metricsToken: token });
    metrics.requests.inc({ capability: 'chat', platform: 'discord', outcome: 'ok' });
    const anonymous = await fetch(`${base}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect(await anonymous.text()).not.toContain('herald_requests_total');
    expect((await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer metrics-secret-012345678' } })).status).toBe(401);
    expect((await fetch(`${base}/metrics`, { headers: { authorization: token } })).status).toBe(401);
    const allowed = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain('herald_requests_total{capability="chat",platform="discord",outcome="ok"} 1');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });

  it('answers 404 for unknown paths and 405 for writes to its own routes', async () => {
    const { base } = await start();
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/healthz/extra`)).status).toBe(404);
    const post = await fetch(`${base}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await fetch(`${base}/healthz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('routes a mounted prefix and the paths below it, longest prefix first, with the path unchanged', async () => {
    const { ops, base } = await start();
    ops.mount('/hooks/', (req, res) => res.end(`hooks saw ${req.url}`));
    ops.mount('/hooks/github', (req, res) => res.end(`github saw ${req.url}`));
    expect(await (await fetch(`${base}/hooks`)).text()).toBe('hooks saw /hooks');
    expect(await (await fetch(`${base}/hooks/gitlab?x=1`)).text()).toBe('hooks saw /hooks/gitlab?x=1');
    expect(await (await fetch(`${base}/hooks/github/push`)).text()).toBe('github saw /hooks/github/push');
    expect((await fetch(`${base}/hooksy`)).status).toBe(404);
  });

  it('refuses to mount over the root, its own routes or an existing prefix', async () => {
    const { ops } = await start();
    ops.mount('/slack', (_req, res) => res.end());
    expect(() => ops.mount('/', (_req, res) => res.end())).toThrow(/below the root/);
    expect(() => ops.mount('/metrics', (_req, res) => res.end())).toThrow(/served by the ops server/);
    expect(() => ops.mount('/slack/', (_req, res) => res.end())).toThrow(/already mounted/);
  });

  it('turns a handler that throws or rejects into a logged 500', async () => {
    const { ops, base, logLines } = await start();
    ops.mount('/sync', () => {
      throw new Error('sync boom');
    });
    ops.mount('/async', async () => {
      await Promise.resolve();
      throw new Error('async boom');
    });
    expect((await fetch(`${base}/sync`)).status).toBe(500);
    expect((await fetch(`${base}/async`)).status).toBe(500);
    await new Promise((resolve) => setImmediate(resolve));
    const logged = logLines.map((line) => JSON.parse(line) as { msg: string; path: string; err: { message: string } });
    expect(logged.map((l) => [l.msg, l.path, l.err.message])).toEqual([
      ['HTTP handler failed', '/sync', 'sync boom'],
      ['HTTP handler failed', '/async', 'async boom'],
    ]);
  });

  it("hosts Bolt's HTTPReceiver under /slack as documented", async () => {
    const { ops, base } = await start();
    const signingSecret = 'test-signing-secret';
    const receiver = new HTTPReceiver({ signingSecret, logLevel: LogLevel.ERROR });
    ops.mount('/slack', (req, res) => {
      try {
        receiver.requestListener(req, res);
      } catch (error) {
        if (!(error instanceof HTTPReceiverDeferredRequestError)) throw error;
        res.writeHead(404).end();
      }
    });

    const body = JSON.stringify({ type: 'url_verification', challenge: 'abc123', token: 'x' });
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
    const signed = await fetch(`${base}/slack/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': signature },
      body,
    });
    expect(signed.status).toBe(200);
    expect(await signed.json()).toEqual({ challenge: 'abc123' });

    const forged = await fetch(`${base}/slack/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': 'v0=00' },
      body,
    });
    expect(forged.status).toBe(401);
    expect((await fetch(`${base}/slack/other`)).status).toBe(404);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });

  it('lets a request in progress finish on close, and cuts one that outlasts the grace', async () => {
    const { ops, base } = await start();
    const arrived = arrivals(2);
    ops.mount('/slow', (_req, res) => {
      arrived.one();
      setTimeout(() => res.end('finished'), 100);
    });
    ops.mount('/stuck', () => arrived.one());
    const slow = fetch(`${base}/slow`).then((r) => r.text());
    const stuck = fetch(`${base}/stuck`).then(
      () => 'answered',
      () => 'cut',
    );
    await arrived.all;
    const started = performance.now();
    await ops.close({ graceMs: 300 });
    const took = performance.now() - started;
    expect(await slow).toBe('finished');
    expect(await stuck).toBe('cut');
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(1500);
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });

  it('cuts connections on close as soon as the given signal aborts', async () => {
    const { ops, base } = await start();
    const arrived = arrivals(1);
    ops.mount('/stuck', () => arrived.one());
    const stuck = fetch(`${base}/stuck`).then(
      () => 'answered',
      () => 'cut',
    );
    await arrived.all;
    const started = performance.now();
    await ops.close({ signal: AbortSignal.timeout(100) });
    expect(await stuck).toBe('cut');
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
