import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { collectReply } from '../helpers/collect-reply.ts';
import { createCore, type Core } from '../../src/core.ts';
import { silentLogger } from '../helpers/logger.ts';
import { createMetrics, type Metrics } from '../../src/ops/metrics.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';

let emu: Emulator;
let core: Core;
let metrics: Metrics;

beforeAll(async () => {
  emu = await startEmulator();
  metrics = createMetrics({ defaultMetrics: false });
  const config = loadConfig({ API_BASE_URL: emu.url, API_KEY: emu.apiKey, STORE_URL: 'memory://', THINKING: 'off' }, { envFile: '/nonexistent' });
  core = await createCore(config, silentLogger, { metrics });
});
afterAll(async () => {
  await core.close();
  await emu.close();
});

const message = (text: string) => ({
  platform: 'test',
  channelId: 'c1',
  messageId: `m-${text}`,
  author: { id: 'u1', displayName: 'Ada' },
  text,
  isDirect: true,
});

describe('reply metrics', () => {
  it('counts replies by outcome, times the first token and adds up tokens and searches', async () => {
    await collectReply(core.engine.handle(message('hello')));
    await collectReply(core.engine.handle(message('latest news please'), { overrides: { webSearch: 'force' } }));
    emu.faults.push({ status: 400, body: '{"error":{"message":"nope","type":"invalid_request_error"}}', contentType: 'application/json' });
    await collectReply(core.engine.handle(message('this one fails')));
    await core.speak({ text: 'hi there' }, 'wav');

    const text = await metrics.registry.metrics();
    expect(text).toContain('herald_requests_total{capability="chat",platform="test",outcome="ok"} 2');
    expect(text).toContain('herald_requests_total{capability="chat",platform="test",outcome="service"} 1');
    expect(text).toContain('herald_requests_total{capability="synthesize",platform="any",outcome="ok"} 1');
    expect(text).toMatch(/herald_time_to_first_token_seconds_count\{capability="chat"\} 2/);
    expect(text).toMatch(/herald_reply_duration_seconds_count\{capability="chat"\} 3/);
    expect(text).toMatch(/herald_tokens_total\{kind="prompt"\} [1-9]\d*/);
    expect(text).toMatch(/herald_web_search_calls_total [1-9]\d*/);
    expect(text).toMatch(/herald_audio_seconds_total\{direction="out"\} 0\.\d+/);
  });
});
