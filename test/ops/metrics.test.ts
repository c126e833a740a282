import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/ops/metrics.ts';

function typesOf(exposition: string): Map<string, string> {
  const types = new Map<string, string>();
  for (const match of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) types.set(match[1]!, match[2]!);
  return types;
}

describe('createMetrics', () => {
  it('exposes exactly the documented Herald metrics, prefixed and typed', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    expect(Object.fromEntries(typesOf(await metrics.registry.metrics()))).toEqual({
      herald_requests_total: 'counter',
      herald_time_to_first_token_seconds: 'histogram',
      herald_reply_duration_seconds: 'histogram',
      herald_tokens_total: 'counter',
      herald_web_search_calls_total: 'counter',
      herald_audio_seconds_total: 'counter',
      herald_platform_rate_limited_total: 'counter',
      herald_shared_rate_leases_total: 'counter',
      herald_service_errors_total: 'counter',
      herald_queue_length: 'gauge',
      herald_replies_taken_over_total: 'counter',
      herald_inflight_replies: 'gauge',
      herald_feedback_total: 'counter',
      herald_mcp_tool_calls_total: 'counter',
      herald_mcp_tool_call_seconds: 'histogram',
      herald_schedule_runs_total: 'counter',
    });
  });

  it('renders labelled samples in the Prometheus text format', async () => {
    const m = createMetrics({ defaultMetrics: false });
    m.requests.inc({ capability: 'chat', platform: 'discord', outcome: 'ok' });
    m.requests.inc({ capability: 'chat', platform: 'discord', outcome: 'ok' });
    m.requests.inc({ capability: 'transcribe', platform: 'slack', outcome: 'error' });
    m.timeToFirstToken.observe({ capability: 'chat' }, 0.4);
    m.replyDuration.observe({ capability: 'chat' }, 7);
    m.tokens.inc({ kind: 'prompt' }, 1200);
    m.tokens.inc({ kind: 'reasoning' }, 300);
    m.webSearchCalls.inc(2);
    m.audioSeconds.inc({ direction: 'in' }, 12.5);
    m.platformRateLimited.inc({ platform: 'discord', route: '/channels/:id/messages' });
    m.sharedRateLeases.inc({ platform: 'slack', outcome: 'short' });
    m.serviceErrors.inc({ code: 'rate_limited' });
    m.queueLength.set({ queue: 'voice' }, 3);
    m.queueLength.dec({ queue: 'voice' });
    m.inflightReplies.inc();
    m.inflightReplies.inc();
    m.inflightReplies.dec();
    m.feedback.inc({ platform: 'slack', rating: 'negative' });

    const text = await m.registry.metrics();
    const lines = text.split('\n');
    expect(lines).toContain('herald_requests_total{capability="chat",platform="discord",outcome="ok"} 2');
    expect(lines).toContain('herald_requests_total{capability="transcribe",platform="slack",outcome="error"} 1');
    expect(lines).toContain('herald_time_to_first_token_seconds_bucket{le="0.25",capability="chat"} 0');
    expect(lines).toContain('herald_time_to_first_token_seconds_bucket{le="0.5",capability="chat"} 1');
    expect(lines).toContain('herald_time_to_first_token_seconds_count{capability="chat"} 1');
    expect(lines).toContain('herald_reply_duration_seconds_sum{capability="chat"} 7');
    expect(lines).toContain('herald_tokens_total{kind="prompt"} 1200');
    expect(lines).toContain('herald_tokens_total{kind="reasoning"} 300');
    expect(lines).toContain('herald_web_search_calls_total 2');
    expect(lines).toContain('herald_audio_seconds_total{direction="in"} 12.5');
    expect(lines).toContain('herald_platform_rate_limited_total{platform="discord",route="/channels/:id/messages"} 1');
    expect(lines).toContain('herald_shared_rate_leases_total{platform="slack",outcome="short"} 1');
    expect(lines).toContain('herald_service_errors_total{code="rate_limited"} 1');
    expect(lines).toContain('herald_queue_length{queue="voice"} 2');
    expect(lines).toContain('herald_inflight_replies 1');
    expect(lines).toContain('herald_feedback_total{platform="slack",rating="negative"} 1');
    expect(m.registry.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('times a reply with startTimer', async () => {
    const m = createMetrics({ defaultMetrics: false });
    const end = m.replyDuration.startTimer({ capability: 'synthesize' });
    await new Promise((resolve) => setTimeout(resolve, 30));
    const seconds = end();
    expect(seconds).toBeGreaterThanOrEqual(0.025);
    const sum = (await m.registry.metrics()).match(/^herald_reply_duration_seconds_sum\{capability="synthesize"\} (\S+)$/m);
    expect(Number(sum?.[1])).toBeCloseTo(seconds, 6);
  });

  it('includes Node process metrics such as event loop lag by default', async () => {
    const types = typesOf(await createMetrics().registry.metrics());
    expect(types.get('herald_nodejs_eventloop_lag_seconds')).toBe('gauge');
    expect(types.get('herald_process_cpu_user_seconds_total')).toBe('counter');
    expect(types.get('herald_nodejs_heap_size_used_bytes')).toBe('gauge');
  });

  it('gives every Metrics object its own registry, so two never share counts or collide', async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.webSearchCalls.inc(5);
    expect(await a.registry.metrics()).toContain('herald_web_search_calls_total 5');
    expect(await b.registry.metrics()).toContain('herald_web_search_calls_total 0');
  });
});
