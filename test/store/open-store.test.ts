import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, sqlitePath } from '../../src/store/open-store.ts';
import { removeTempDirs, tempDir } from './backends.ts';

afterAll(removeTempDirs);

describe('openStore', () => {
  it('creates the SQLite file and its directory on first run, and reads it back after a restart', async () => {
    const path = join(tempDir(), 'nested', 'data', 'herald.sqlite');
    const first = await openStore(`sqlite://${path}`);
    expect(first.kind).toBe('sqlite');
    await first.set('history:x', ['turn']);
    await first.close();
    expect(existsSync(path)).toBe(true);
    const second = await openStore(`sqlite://${path}`);
    expect(await second.get('history:x')).toEqual(['turn']);
    await second.close();
  });

  it('reads relative, absolute and in-memory SQLite URLs', () => {
    expect(sqlitePath('sqlite://./data/herald.sqlite')).toBe('./data/herald.sqlite');
    expect(sqlitePath('sqlite:///var/lib/herald/db.sqlite')).toBe('/var/lib/herald/db.sqlite');
    expect(sqlitePath('sqlite://:memory:')).toBe(':memory:');
    expect(() => sqlitePath('sqlite://')).toThrow(/file path/);
  });

  it('opens a private memory store', async () => {
    const store = await openStore('memory://');
    expect(store.kind).toBe('memory');
    await store.close();
  });

  it('fails at once, naming the address, when no Redis server answers', async () => {
    const started = Date.now();
    await expect(openStore('redis://127.0.0.1:1')).rejects.toThrow(/ECONNREFUSED|127\.0\.0\.1:1/);
    expect(Date.now() - started).toBeLessThan(6000);
  });

  it('rejects an unknown scheme', async () => {
    await expect(openStore('postgres://x')).rejects.toThrow(/STORE_URL/);
  });
});

describe('the SQLite file', () => {
  it('is created readable by its owner only, in directories only its owner can enter, journal included', async () => {
    const base = tempDir();
    const path = join(base, 'private', 'data', 'herald.sqlite');
    const store = await openStore(`sqlite://${path}`);
    await store.set('history:x', ['what alice said']);
    const mode = (file: string) => statSync(file).mode & 0o777;
    expect(mode(path)).toBe(0o600);
    expect(mode(`${path}-wal`)).toBe(0o600);
    expect(mode(join(base, 'private', 'data'))).toBe(0o700);
    expect(mode(join(base, 'private'))).toBe(0o700);
    await store.close();
  });
});
