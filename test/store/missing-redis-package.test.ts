import { describe, expect, it, vi } from 'vitest';
import { openStore } from '../../src/store/open-store.ts';

vi.mock('@keyv/redis', () => {
  throw new Error("Cannot find package '@keyv/redis'");
});

describe('openStore without the Redis client package', () => {
  it('still opens memory and SQLite stores', async () => {
    for (const url of ['memory://', 'sqlite://:memory:']) {
      const store = await openStore(url);
      await store.set('k', 'v');
      expect(await store.get('k')).toBe('v');
      await store.close();
    }
  });

  it('fails a redis:// store with one line naming the package', async () => {
    await expect(openStore('redis://127.0.0.1:6379')).rejects.toThrow(/^could not load the package "@keyv\/redis" \([^\n]+\); reinstall/);
  });
});
