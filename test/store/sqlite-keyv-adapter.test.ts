import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Keyv } from 'keyv';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { NodeSqliteKeyvAdapter } from '../../src/store/sqlite-keyv-adapter.ts';
import { removeTempDirs, tempDir } from './backends.ts';

const path = join(tempDir(), 'keyv.sqlite');
const db = new DatabaseSync(path);
const adapter = () => new NodeSqliteKeyvAdapter(db, { url: `sqlite://${path}` });
/** Keyv over the adapter, as SqliteStore uses it, in a namespace of the test's own (Keyv's namespaces hold no colon). */
const keyvIn = (namespace = `ns-${randomUUID()}`) => new Keyv({ store: adapter(), namespace });

afterEach(() => {
  vi.useRealTimers();
});

afterAll(() => {
  db.close();
  removeTempDirs();
});

describe('NodeSqliteKeyvAdapter under Keyv', () => {
  it('gives back every JSON shape it was given, and undefined for a key never set', async () => {
    const keyv = keyvIn();
    const values = { text: 'héllo ✓', number: 1.5, zero: 0, no: false, nothing: null, list: [1, 'two', { three: 3 }], nested: { a: { b: [] } } };
    for (const [key, value] of Object.entries(values)) await keyv.set(key, value);
    for (const [key, value] of Object.entries(values)) expect(await keyv.get(key)).toEqual(value);
    expect(await keyv.get('never-set')).toBeUndefined();
  });

  it('replaces a value on a second set, and the TTL with it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const keyv = keyvIn();
    await keyv.set('k', 'first', 1_000);
    await keyv.set('k', 'second');
    vi.advanceTimersByTime(5_000);
    expect(await keyv.get('k')).toBe('second');
  });

  it('forgets a value once its TTL has passed, and not before', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const keyv = keyvIn();
    await keyv.set('short', 'soon gone', 1_000);
    await keyv.set('forever', 'kept');
    vi.advanceTimersByTime(999);
    expect(await keyv.get('short')).toBe('soon gone');
    vi.advanceTimersByTime(2);
    expect(await keyv.get('short')).toBeUndefined();
    expect(await keyv.has('short')).toBe(false);
    expect(await keyv.get('forever')).toBe('kept');
  });

  it('says whether a delete removed anything, and deletes many at once', async () => {
    const keyv = keyvIn();
    await keyv.setMany([
      { key: 'a', value: 1 },
      { key: 'b', value: 2 },
      { key: 'c', value: 3 },
    ]);
    expect(await keyv.delete('a')).toBe(true);
    expect(await keyv.delete('a')).toBe(false);
    expect(await keyv.delete(['b', 'c', 'missing'])).toBe(true);
    expect(await keyv.getMany(['a', 'b', 'c'])).toEqual([undefined, undefined, undefined]);
  });

  it('answers getMany and hasMany in the order of the keys asked', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const keyv = keyvIn();
    await keyv.setMany([
      { key: 'x', value: 'ex' },
      { key: 'gone', value: 'old', ttl: 10 },
      { key: 'y', value: { why: true } },
    ]);
    vi.advanceTimersByTime(20);
    expect(await keyv.getMany(['y', 'missing', 'x', 'gone'])).toEqual([{ why: true }, undefined, 'ex', undefined]);
    expect(await keyv.hasMany(['x', 'gone', 'missing', 'y'])).toEqual([true, false, false, true]);
  });

  it('keeps namespaces apart: the same key in two, and clear() empties only its own', async () => {
    const one = keyvIn();
    const two = keyvIn();
    await one.set('shared-name', 'in one');
    await two.set('shared-name', 'in two');
    await one.clear();
    expect(await one.get('shared-name')).toBeUndefined();
    expect(await two.get('shared-name')).toBe('in two');
  });

  it("iterates over its own namespace's live entries only, and allows deleting while iterating", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const keyv = keyvIn();
    await keyvIn().set('elsewhere', 'not mine');
    await keyv.setMany([
      { key: 'a', value: 1 },
      { key: 'b', value: { two: 2 } },
      { key: 'expired', value: 3, ttl: 10 },
    ]);
    vi.advanceTimersByTime(20);
    const seen: [string, unknown][] = [];
    for await (const [key, value] of keyv.iterator!(keyv.namespace)) {
      seen.push([key, value]);
      await keyv.delete(key);
    }
    expect(seen).toEqual([
      ['a', 1],
      ['b', { two: 2 }],
    ]);
    expect(await keyv.hasMany(['a', 'b'])).toEqual([false, false]);
  });

  it('keeps data in the file for a later connection', async () => {
    await new Keyv({ store: adapter(), namespace: 'persist' }).set('greeting', { text: 'hello' });
    const second = new DatabaseSync(path);
    const reopened = new Keyv({ store: new NodeSqliteKeyvAdapter(second, { url: `sqlite://${path}` }), namespace: 'persist' });
    expect(await reopened.get('greeting')).toEqual({ text: 'hello' });
    second.close();
  });

  it('purgeExpired deletes only rows whose TTL has passed', async () => {
    const own = new DatabaseSync(join(tempDir(), 'purge.sqlite'));
    const store = new NodeSqliteKeyvAdapter(own, { url: 'sqlite://purge.sqlite' });
    const keyv = new Keyv({ store, namespace: 'purge' });
    await keyv.set('old', 1, 1);
    await keyv.set('kept', 2);
    expect(store.purgeExpired(Date.now() + 10)).toBe(1);
    expect(await keyv.get('kept')).toBe(2);
    own.close();
  });

  it('refuses a table name that is not a plain identifier, before it reaches SQL', () => {
    expect(() => new NodeSqliteKeyvAdapter(db, { url: `sqlite://${path}`, table: 'keyv; DROP TABLE keyv' })).toThrow(RangeError);
  });
});
