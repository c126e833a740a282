import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { ConfigError } from '../../src/config/config-error.ts';

const none = { envFile: '/nonexistent/.env' };
const base = { API_BASE_URL: 'http://127.0.0.1:8787/', API_KEY: 'sk-test-key' };

function failure(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env, none);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected loadConfig to fail');
}

describe('loadConfig', () => {
  it('applies the spec defaults when only the service is configured', () => {
    const config = loadConfig(base, none);
    expect(config.api.baseUrl).toBe('http://127.0.0.1:8787');
    expect(config.api.auth).toBe('bearer');
    expect(config.api.format).toBe('chat');
    expect(config.api.messagesPrefix).toBe('anthropic');
    expect(config.models).toEqual({
      chat: 'svc-v2.5-pro',
      chatAllowed: ['svc-v2.5-pro', 'svc-v2.5', 'svc-v2-pro', 'svc-v2-omni', 'svc-v2-flash'],
      vision: 'svc-v2.5',
      asr: 'svc-v2.5-asr',
      tts: 'svc-v2-tts',
    });
    expect(config.tts.voice).toBe('svc_default');
    expect(config.webSearch.mode).toBe('auto');
    expect(config.thinking).toBe(true);
    expect(config.storeUrl).toBe('sqlite://./data/herald.sqlite');
    expect(config.discord).toBeUndefined();
    expect(config.slack).toBeUndefined();
  });

  it('reads every contract variable', () => {
    const config = loadConfig(
      {
        ...base,
        API_AUTH: 'api-key',
        API_FORMAT: 'messages',
        API_MESSAGES_PREFIX: 'alt',
        CHAT_MODEL: 'acme-v2.5-pro',
        VISION_MODEL: 'acme-v2.5',
        ASR_MODEL: 'acme-v2.5-asr',
        TTS_MODEL: 'acme-v2-tts',
        TTS_VOICE: 'default_en',
        WEB_SEARCH: 'force',
        THINKING: 'off',
        LOG_LEVEL: 'debug',
        WEB_SEARCH_CITY: 'Lyon',
        DISCORD_TOKEN: 'discord-token',
        DISCORD_API_URL: 'http://127.0.0.1:9/api',
        SLACK_BOT_TOKEN: 'xoxb-1-2-3',
        SLACK_APP_TOKEN: 'xapp-1-2-3',
        STORE_URL: 'redis://127.0.0.1:6379',
        PORT: '8080',
      },
      none,
    );
    expect(config.api).toMatchObject({ auth: 'api-key', format: 'messages', messagesPrefix: 'alt' });
    expect(config.models.chat).toBe('acme-v2.5-pro');
    expect(config.tts.voice).toBe('default_en');
    expect(config.webSearch).toMatchObject({ mode: 'force', userLocation: { type: 'approximate', city: 'Lyon' } });
    expect(config.thinking).toBe(false);
    expect(config.logLevel).toBe('debug');
    expect(config.discord).toEqual({ token: 'discord-token', apiUrl: 'http://127.0.0.1:9/api', shards: { count: 1 } });
    expect(config.slack).toMatchObject({ botToken: 'xoxb-1-2-3', appToken: 'xapp-1-2-3' });
    expect(config.storeUrl).toBe('redis://127.0.0.1:6379');
    expect(config.port).toBe(8080);
  });

  it('names the variable in one line when a value is missing or bad', () => {
    expect(failure({}).message).toMatch(/^API_BASE_URL: required/);
    expect(failure({ API_BASE_URL: 'http://x' }).message).toMatch(/^API_KEY: required/);
    expect(failure({ ...base, API_AUTH: 'basic' }).message).toBe('API_AUTH: expected one of "bearer", "api-key", got "basic"');
    expect(failure({ ...base, WEB_SEARCH: 'sometimes' }).variable).toBe('WEB_SEARCH');
    expect(failure({ ...base, API_BASE_URL: 'ftp://x' }).message).toMatch(/^API_BASE_URL: expected an http\(s\) URL/);
    expect(failure({ ...base, PORT: 'eighty' }).variable).toBe('PORT');
    expect(failure({ ...base, TZ: 'Mars/Olympus' }).variable).toBe('TZ');
    expect(failure({ ...base, SLACK_BOT_TOKEN: 'xoxb-1' }).message).toMatch(/^SLACK_SIGNING_SECRET: required/);
    for (const error of [failure({ ...base, API_AUTH: 'x' }), failure({})]) expect(error.message).not.toContain('\n');
  });

  it('never echoes a bad secret back', () => {
    const error = failure({ ...base, SLACK_BOT_TOKEN: 'not-a-token-but-secret', SLACK_SIGNING_SECRET: 's' });
    expect(error.variable).toBe('SLACK_BOT_TOKEN');
    expect(error.message).not.toContain('not-a-token-but-secret');
  });

  it('reads .env and lets the real environment win', () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-env-'));
    const file = join(dir, '.env');
    writeFileSync(file, 'API_BASE_URL=http://from-file:1\nAPI_KEY=file-key\nTHINKING=off\nCHAT_MODEL=\n');
    const config = loadConfig({ THINKING: 'on' }, { envFile: file });
    expect(config.api.baseUrl).toBe('http://from-file:1');
    expect(config.api.key).toBe('file-key');
    expect(config.thinking).toBe(true);
    expect(config.models.chat).toBe('svc-v2.5-pro');
  });

  it('lets commands that never call the service run without a key', () => {
    expect(loadConfig({ DISCORD_TOKEN: 't' }, { ...none, requireService: false }).discord?.token).toBe('t');
  });
});
