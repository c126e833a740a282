import { createClient } from '@keyv/redis';

/** The Redis database a cluster run owns: emptied at the start, and the server's command count read around it. */
export interface RedisDb {
  /** Commands the server has run so far (every client, every database), from INFO commandstats. */
  commandsSoFar(): Promise<number>;
  close(): Promise<void>;
}

/** `url` pointed at database `db` of the same server. */
export function redisDbUrl(url: string, db: number): string {
  const parsed = new URL(url);
  parsed.pathname = `/${db}`;
  return parsed.toString();
}

/** Connects to `url` (its path names the database, redis://host:port/N) and empties that database. */
export async function ownRedisDb(url: string): Promise<RedisDb> {
  const client = createClient({ url });
  await client.connect();
  await client.flushDb();
  return {
    async commandsSoFar() {
      const stats = await client.info('commandstats');
      return [...stats.matchAll(/calls=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    },
    async close() {
      await client.quit();
    },
  };
}
