import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { ConfigError } from '../../src/config/config-error.ts';

const load = (env: Record<string, string>) => loadConfig(env, { envFile: '/nonexistent/.env', requireService: false });

describe('HTTP and store settings', () => {
  it('binds every interface, serves /metrics openly and gives store calls 3 s by default', () => {
    const config = load({});
    expect(config.host).toBeUndefined();
    expect(config.metricsToken).toBeUndefined();
    expect(config.storeTimeoutMs).toBe(3000);
  });

  it('takes HOST, METRICS_TOKEN and STORE_TIMEOUT_MS', () => {
    const config = load({ HOST: '127.0.0.1', METRICS_TOKEN: 'a-long-metrics-token', STORE_TIMEOUT_MS: '1500' });
    expect(config).toMatchObject({ host: '127.0.0.1', metricsToken: 'a-long-metrics-token', storeTimeoutMs: 1500 });
  });

  it('refuses a short metrics token, a bind address with spaces and a store deadline of zero', () => {
    expect(() => load({ METRICS_TOKEN: 'short' })).toThrow(ConfigError);
    expect(() => load({ HOST: '0.0.0.0 1' })).toThrow(/HOST/);
    expect(() => load({ STORE_TIMEOUT_MS: '0' })).toThrow(/STORE_TIMEOUT_MS/);
  });
});
