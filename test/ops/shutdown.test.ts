import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ShutdownCoordinator, type ShutdownOptions } from '../../src/ops/shutdown.ts';
import { silentLogger as logger } from '../helpers/logger.ts';

function coordinator(options: Partial<ShutdownOptions> = {}) {
  return new ShutdownCoordinator({ logger, ...options });
}

describe('ShutdownCoordinator', () => {
  it('runs the phases in order, each phase’s hooks together, and reports a clean stop', async () => {
    const c = coordinator();
    const events: string[] = [];
    const hook =
      (name: string, ms = 0) =>
      async () => {
        events.push(`start ${name}`);
        await sleep(ms);
        events.push(`end ${name}`);
      };
    c.register('close-server', 'http', hook('http'));
    c.register('close-store', 'store', hook('store'));
    c.register('close-platforms', 'discord', hook('discord', 20));
    c.register('close-platforms', 'slack', hook('slack', 5));
    c.register('finish-replies', 'voice', hook('voice'));
    c.register('stop-intake', 'adapters', hook('intake'));

    const result = await c.shutdown('SIGTERM');
    expect(events).toEqual([
      'start intake',
      'end intake',
      'start voice',
      'end voice',
      'start discord',
      'start slack',
      'end slack',
      'end discord',
      'start store',
      'end store',
      'start http',
      'end http',
    ]);
    expect(result).toMatchObject({ reason: 'SIGTERM', clean: true, unfinished: [], failed: [] });
  });

  it('marks itself shutting down and aborts drainingSignal before the first hook runs', async () => {
    const c = coordinator();
    let seen: [boolean, boolean] | undefined;
    c.register('stop-intake', 'probe', () => {
      seen = [c.isShuttingDown, c.drainingSignal.aborted];
    });
    expect(c.isShuttingDown).toBe(false);
    const done = c.shutdown();
    expect(c.isShuttingDown).toBe(true);
    await done;
    expect(seen).toEqual([true, true]);
  });

  it('waits for tracked replies before closing platforms', async () => {
    const counts: number[] = [];
    const c = coordinator({ onInflightChange: (n) => counts.push(n) });
    const events: string[] = [];
    c.track(
      sleep(80).then(() => events.push('reply finished')),
      'reply',
    );
    c.track(
      sleep(40).then(() => events.push('other finished')),
      'reply',
    );
    expect(c.inflight).toBe(2);
    c.register('close-platforms', 'discord', () => {
      events.push('platform closed');
    });
    const result = await c.shutdown();
    expect(events).toEqual(['other finished', 'reply finished', 'platform closed']);
    expect(result.clean).toBe(true);
    expect(c.inflight).toBe(0);
    expect(counts).toEqual([1, 2, 1, 0]);
  });

  it('returns the tracked promise itself, rejection included, and still counts it done', async () => {
    const c = coordinator();
    const failing = Promise.reject(new Error('reply failed'));
    await expect(c.track(failing)).rejects.toThrow('reply failed');
    expect(c.inflight).toBe(0);
  });

  it('aborts deadlineSignal when the bound nears so a long reply can close its message, then goes on', async () => {
    const c = coordinator({ timeoutMs: 600, reserveMs: 200 });
    const events: string[] = [];
    let abortedAfter = 0;
    const started = performance.now();
    c.track(
      new Promise<void>((resolve) => {
        c.deadlineSignal.addEventListener('abort', () => {
          abortedAfter = performance.now() - started;
          setTimeout(() => {
            events.push('edited: …(interrupted: Herald is restarting)');
            resolve();
          }, 20);
        });
      }),
      'long reply',
    );
    c.register('close-platforms', 'discord', () => {
      events.push('platform closed');
    });
    const result = await c.shutdown();
    expect(abortedAfter).toBeGreaterThanOrEqual(390);
    expect(abortedAfter).toBeLessThan(550);
    expect(events).toEqual(['edited: …(interrupted: Herald is restarting)', 'platform closed']);
    expect(result.clean).toBe(true);
    expect(result.durationMs).toBeLessThan(600);
  });

  it('fires deadlineSignal as soon as the replies are done, before connections close', async () => {
    const c = coordinator({ timeoutMs: 5000 });
    let abortedBeforeClose: boolean | undefined;
    c.register('close-platforms', 'discord', () => {
      abortedBeforeClose = c.deadlineSignal.aborted;
    });
    const result = await c.shutdown();
    expect(abortedBeforeClose).toBe(true);
    expect(result.durationMs).toBeLessThan(200);
  });

  it('stays within the bound when work ignores every signal, naming what it left behind', async () => {
    const c = coordinator({ timeoutMs: 600, reserveMs: 200 });
    const closed: string[] = [];
    c.track(new Promise(() => {}), 'reply discord:123');
    c.register('close-platforms', 'discord', () => new Promise(() => {}));
    c.register('close-store', 'sqlite', () => {
      closed.push('store');
    });
    c.register('close-server', 'http', () => {
      closed.push('http');
    });
    const started = performance.now();
    const result = await c.shutdown();
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(500);
    expect(took).toBeLessThan(750);
    expect(closed).toEqual(['store', 'http']);
    expect(result).toMatchObject({ clean: false, unfinished: ['reply discord:123', 'close-platforms/discord'], failed: [] });
  });

  it('aborts a hook’s own signal when its phase runs out of time', async () => {
    const c = coordinator({ timeoutMs: 400 });
    let reason: unknown;
    c.register(
      'close-server',
      'http',
      ({ signal }) =>
        new Promise<void>((resolve) => {
          signal.addEventListener('abort', () => {
            reason = signal.reason;
            resolve();
          });
        }),
    );
    const result = await c.shutdown();
    expect(String(reason)).toMatch(/close-server ran out of time/);
    expect(result.unfinished).toEqual(['close-server/http']);
  });

  it('reports a failing hook and still runs the later phases', async () => {
    const c = coordinator();
    const closed: string[] = [];
    c.register('close-platforms', 'slack', () => {
      throw new Error('socket already closed');
    });
    c.register('close-store', 'redis', async () => {
      closed.push('store');
    });
    const result = await c.shutdown();
    expect(closed).toEqual(['store']);
    expect(result).toMatchObject({ clean: false, failed: ['close-platforms/slack'], unfinished: [] });
  });

  it('shuts down once however often it is asked', async () => {
    const c = coordinator();
    let runs = 0;
    c.register('close-store', 'store', () => {
      runs++;
    });
    const [a, b] = await Promise.all([c.shutdown('SIGTERM'), c.shutdown('SIGINT')]);
    expect(a).toBe(b);
    expect(a.reason).toBe('SIGTERM');
    expect(runs).toBe(1);
  });

  it('rejects an unknown phase', () => {
    expect(() => coordinator().register('later' as never, 'x', () => {})).toThrow(/unknown shutdown phase/);
  });
});
