import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadConfig, type Env } from '../../src/config/config.ts';
import { sqlitePath } from '../../src/store/open-store.ts';

// The container's environment as Docker builds it: the image's ENV, then compose's env_file (.env, copied from
// .env.example), then compose's `environment`, each winning over the one before.

const root = new URL('../../', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, root), 'utf8');

function imageEnv(): Env {
  const line = read('Dockerfile')
    .split('\n')
    .findLast((l) => l.startsWith('ENV '))!;
  return Object.fromEntries(
    line
      .slice(4)
      .trim()
      .split(/\s+/)
      .map((pair) => pair.split('=') as [string, string]),
  );
}

function composeEnv(): Env {
  const compose = parseYaml(read('docker-compose.yml')) as { services: { herald: { environment: Env } } };
  return compose.services.herald.environment;
}

function storeIn(container: Env): string {
  const config = loadConfig(container, { envFile: '/nonexistent/.env', requireService: false });
  return sqlitePath(config.storeUrl);
}

describe('the container on SQLite', () => {
  const dotEnv = parseEnv(read('.env.example')) as Env;

  it('keeps the database on the /data volume when the Redis override is removed and .env is a copy of .env.example', () => {
    const { STORE_URL: _redis, ...rest } = composeEnv();
    expect(storeIn({ ...imageEnv(), ...dotEnv, ...rest })).toBe('/data/herald.sqlite');
  });

  it('keeps it there when STORE_URL is set as the compose file says', () => {
    const advised = /set (STORE_URL): (\S+) here/.exec(read('docker-compose.yml'));
    expect(advised).not.toBeNull();
    const environment = { ...composeEnv(), [advised![1]!]: advised![2]! };
    expect(storeIn({ ...imageEnv(), ...dotEnv, ...environment })).toBe('/data/herald.sqlite');
  });
});
