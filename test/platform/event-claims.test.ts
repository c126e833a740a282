import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { EventClaims } from '../../src/platform/event-claims.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import type { Store } from '../../src/store/store.ts';

const logger = pino({ level: 'silent' });

/** The store as a second instance sees it, or one whose server is gone. */
function failing(store: Store, down: { now: boolean }): Store {
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (property !== 'setIfAbsent' || typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        down.now ? Promise.reject(new Error('connect ECONNREFUSED')) : (value as (...a: unknown[]) => unknown).apply(target, args);
    },
  });
}

describe('EventClaims', () => {
  it('claims an event once per store, across instances', async () => {
    const store = new MemoryStore();
    const here = new EventClaims(store, logger);
    const there = new EventClaims(store, logger);
    expect(await here.claim('slack:event:Ev1')).toBe(true);
    expect(await here.claim('slack:event:Ev1')).toBe(false);
    expect(await there.claim('slack:event:Ev1')).toBe(false);
    expect(await there.claim('slack:event:Ev2')).toBe(true);
  });

  it('decides in this process while the store is down, and remembers it once the store is back', async () => {
    const down = { now: true };
    const claims = new EventClaims(failing(new MemoryStore(), down), logger);
    expect(await claims.claim('slack:event:Ev1')).toBe(true);
    expect(await claims.claim('slack:event:Ev1')).toBe(false);
    down.now = false;
    expect(await claims.claim('slack:event:Ev1')).toBe(false);
    expect(await claims.claim('slack:event:Ev2')).toBe(true);
  });
});
