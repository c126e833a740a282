import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HealthRegistry } from '../../src/ops/health.ts';
import { serviceProbe } from '../../src/ops/service-probe.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';

const ok = async () => ({ ok: true });

describe('HealthRegistry', () => {
  it('is ready when every critical check passes, whatever the non-critical ones say', async () => {
    const health = new HealthRegistry();
    health.register('store', ok, { critical: true });
    health.register('voice', async () => ({ ok: false, detail: 'no voice channel' }), { critical: false });
    const report = await health.readiness();
    expect(report.ready).toBe(true);
    expect(report.checks.map((c) => [c.name, c.ok, c.critical, c.detail])).toEqual([
      ['store', true, true, undefined],
      ['voice', false, false, 'no voice channel'],
    ]);
  });

  it('is not ready while a critical check fails, and ready again once it passes', async () => {
    let storeUp = false;
    const health = new HealthRegistry();
    health.register('discord', ok, { critical: true });
    health.register('store', async () => (storeUp ? { ok: true } : { ok: false, detail: 'connection refused' }), { critical: true });
    const down = await health.readiness();
    expect(down.ready).toBe(false);
    expect(down.checks.find((c) => c.name === 'store')).toMatchObject({ ok: false, detail: 'connection refused' });
    storeUp = true;
    expect((await health.readiness()).ready).toBe(true);
  });

  it('counts a throwing check and a check that never answers as failed', async () => {
    const health = new HealthRegistry({ checkTimeoutMs: 50 });
    health.register(
      'throws',
      async () => {
        throw new Error('socket closed');
      },
      { critical: true },
    );
    health.register('hangs', () => new Promise(() => {}), { critical: true });
    const started = performance.now();
    const report = await health.readiness();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(report.ready).toBe(false);
    expect(report.checks).toMatchObject([
      { name: 'throws', ok: false, detail: 'failed' },
      { name: 'hangs', ok: false, detail: 'no answer within 50 ms' },
    ]);
  });

  it('is never ready while shutting down, but stays alive', async () => {
    let shuttingDown = false;
    const health = new HealthRegistry({ isShuttingDown: () => shuttingDown });
    health.register('store', ok, { critical: true });
    expect((await health.readiness()).ready).toBe(true);
    shuttingDown = true;
    expect(await health.readiness()).toMatchObject({ ready: false, shuttingDown: true });
    expect(health.liveness()).toMatchObject({ alive: true, shuttingDown: true });
  });

  it('runs each check once for probes that arrive together', async () => {
    let calls = 0;
    const health = new HealthRegistry();
    health.register(
      'service',
      async () => {
        calls++;
        await new Promise((resolve) => setTimeout(resolve, 20));
        return { ok: true };
      },
      { critical: true },
    );
    await Promise.all([health.readiness(), health.readiness(), health.readiness()]);
    expect(calls).toBe(1);
    await health.readiness();
    expect(calls).toBe(2);
  });

  it('refuses two checks under one name', () => {
    const health = new HealthRegistry();
    health.register('store', ok, { critical: true });
    expect(() => health.register('store', ok, { critical: false })).toThrow(/already registered/);
  });
});

describe('serviceProbe', () => {
  let emulator: Emulator | undefined;
  let silent: Server | undefined;
  afterEach(async () => {
    await emulator?.close();
    silent?.closeAllConnections();
    await new Promise((resolve) => (silent ? silent.close(resolve) : resolve(undefined)));
    emulator = silent = undefined;
  });

  it('finds the service reachable without calling any model', async () => {
    emulator = await startEmulator();
    const result = await serviceProbe(emulator.url)();
    expect(result.ok).toBe(true);
    expect(result.detail).toMatch(/^HTTP \d{3}$/);
    expect(emulator.requests.filter((r) => r.method !== 'HEAD')).toEqual([]);
  });

  it('reports a refused connection', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    expect(await serviceProbe(`http://127.0.0.1:${port}`)()).toEqual({ ok: false, detail: 'connection refused' });
  });

  it('gives up on a host that accepts but never answers', async () => {
    silent = createServer(() => {});
    await new Promise<void>((resolve) => silent!.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const started = performance.now();
    expect(await serviceProbe(`http://127.0.0.1:${port}/`, { timeoutMs: 150 })()).toEqual({
      ok: false,
      detail: 'no answer within 150 ms',
    });
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
