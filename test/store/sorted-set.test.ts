import { afterAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.ts';
import { removeTempDirs, storeBackends, storePerTest, uniqueKey } from './backends.ts';

const backends = await storeBackends();

afterAll(removeTempDirs);

describe.each(backends)('$name store: sorted sets', (backend) => {
  let store: Store;
  const track = storePerTest(backend, (opened) => {
    store = opened;
  });

  it('adds, moves and removes members, and lists those due by a time, soonest first, without taking them', async () => {
    const set = uniqueKey('due');
    await store.sortedAdd(set, 'later', 3000);
    await store.sortedAdd(set, 'first', 1000);
    await store.sortedAdd(set, 'b-tie', 2000);
    await store.sortedAdd(set, 'a-tie', 2000);
    expect(await store.sortedUpTo(set, 2000, 10)).toEqual([
      { member: 'first', score: 1000 },
      { member: 'a-tie', score: 2000 },
      { member: 'b-tie', score: 2000 },
    ]);
    expect(await store.sortedUpTo(set, 2000, 2)).toEqual([
      { member: 'first', score: 1000 },
      { member: 'a-tie', score: 2000 },
    ]);
    expect(await store.sortedUpTo(set, 999, 10)).toEqual([]);
    expect(await store.sortedUpTo(set, 0, 0)).toEqual([]);

    await store.sortedAdd(set, 'first', 5000);
    expect(await store.sortedRemove(set, 'b-tie')).toBe(true);
    expect(await store.sortedRemove(set, 'b-tie')).toBe(false);
    expect(await store.sortedUpTo(set, Infinity, 10)).toEqual([
      { member: 'a-tie', score: 2000 },
      { member: 'later', score: 3000 },
      { member: 'first', score: 5000 },
    ]);
    expect(await store.sortedUpTo(uniqueKey('empty'), Infinity, 10)).toEqual([]);
  });

  it('keeps millisecond timestamps exactly, and sets apart from each other', async () => {
    const a = uniqueKey('a');
    const b = uniqueKey('b');
    const at = Date.UTC(2026, 10, 26, 16, 27, 13, 999);
    await store.sortedAdd(a, 'x', at);
    await store.sortedAdd(b, 'x', at + 1);
    expect(await store.sortedUpTo(a, at, 10)).toEqual([{ member: 'x', score: at }]);
    expect(await store.sortedUpTo(b, at, 10)).toEqual([]);
    await expect(store.sortedAdd(a, 'y', Number.NaN)).rejects.toThrow(RangeError);
  });

  if (backend.openTwin) {
    it('is shared with another instance on the same data', async () => {
      const other = await backend.openTwin!(store);
      track(other);
      const set = uniqueKey('shared');
      await store.sortedAdd(set, 'job', 42);
      expect(await other.sortedUpTo(set, 42, 10)).toEqual([{ member: 'job', score: 42 }]);
      expect(await other.sortedRemove(set, 'job')).toBe(true);
      expect(await store.sortedUpTo(set, Infinity, 10)).toEqual([]);
    });
  }
});
