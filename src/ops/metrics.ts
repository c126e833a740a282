import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export type TokenKind = 'prompt' | 'completion' | 'reasoning' | 'cached' | 'image' | 'audio';
export type AudioDirection = 'in' | 'out';

export interface CounterHandle<L extends Record<string, string>> {
  inc(labels: L, value?: number): void;
}

export interface PlainCounterHandle {
  inc(value?: number): void;
}

export interface HistogramHandle<L extends Record<string, string>> {
  observe(labels: L, seconds: number): void;
  /** Starts a clock; calling the returned function records the elapsed seconds (and returns them). */
  startTimer(labels: L): () => number;
}

export interface GaugeHandle<L extends Record<string, string>> {
  inc(labels: L, value?: number): void;
  dec(labels: L, value?: number): void;
  set(labels: L, value: number): void;
}

export interface PlainGaugeHandle {
  inc(value?: number): void;
  dec(value?: number): void;
  set(value: number): void;
}

export interface Metrics {
  /** Scraped by GET /metrics; one per Metrics object, so tests and several apps never share state. */
  registry: Registry;
  /** Requests handled, by capability (chat, describe, transcribe, synthesize…), platform and outcome (ok, error…). */
  requests: CounterHandle<{ capability: string; platform: string; outcome: string }>;
  timeToFirstToken: HistogramHandle<{ capability: string }>;
  replyDuration: HistogramHandle<{ capability: string }>;
  tokens: CounterHandle<{ kind: TokenKind }>;
  webSearchCalls: PlainCounterHandle;
  audioSeconds: CounterHandle<{ direction: AudioDirection }>;
  /** 429 answers from a platform API, by platform and route (the route template, never an id-bearing path). */
  platformRateLimited: CounterHandle<{ platform: string; route: string }>;
  /** Leases of rate budgets shared through Redis, by platform; `short` when the store had fewer tokens than asked. */
  sharedRateLeases: CounterHandle<{ platform: string; outcome: 'granted' | 'short' }>;
  serviceErrors: CounterHandle<{ code: string }>;
  /** Waiting items per queue (voice playback queues, conversation lock waiters). */
  queueLength: GaugeHandle<{ queue: string }>;
  inflightReplies: PlainGaugeHandle;
  /** 👍/👎 votes on answers (a changed vote counts again, as its new rating), by platform and rating. */
  feedback: CounterHandle<{ platform: string; rating: string }>;
  /** Replies an instance died writing, finished by this one, by platform. */
  repliesTakenOver: CounterHandle<{ platform: string }>;
  /** MCP tool calls, by server, tool (its own name) and outcome (ok, error, timeout). */
  mcpToolCalls: CounterHandle<{ server: string; tool: string; outcome: string }>;
  mcpToolSeconds: HistogramHandle<{ server: string; tool: string }>;
  /** Schedule runs on this instance, by platform, kind (reminder, prompt, summary) and outcome (ok, failed, skipped…). */
  scheduleRuns: CounterHandle<{ platform: string; kind: string; outcome: string }>;
}

export interface MetricsOptions {
  /** Node process metrics (event loop lag, heap, GC, handles). Default true. */
  defaultMetrics?: boolean;
}

export const METRIC_PREFIX = 'herald_';

// Model latency: first tokens arrive in well under a second up to half a minute with thinking and search.
const FIRST_TOKEN_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 13, 20, 30, 60];
// Whole replies: short answers take seconds, long reasoning or speech minutes.
const REPLY_BUCKETS = [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600];
// Tool calls: a local lookup in milliseconds up to a slow remote server at its timeout.
const TOOL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20];

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  const registers = [registry];
  const name = (suffix: string) => `${METRIC_PREFIX}${suffix}`;

  return {
    registry,
    requests: new Counter({
      name: name('requests_total'),
      help: 'Requests handled, by capability, platform and outcome.',
      labelNames: ['capability', 'platform', 'outcome'] as const,
      registers,
    }),
    timeToFirstToken: new Histogram({
      name: name('time_to_first_token_seconds'),
      help: 'Seconds from sending a request to the service until the first answer token arrived.',
      labelNames: ['capability'] as const,
      buckets: FIRST_TOKEN_BUCKETS,
      registers,
    }),
    replyDuration: new Histogram({
      name: name('reply_duration_seconds'),
      help: 'Seconds from receiving a user request until the reply was complete.',
      labelNames: ['capability'] as const,
      buckets: REPLY_BUCKETS,
      registers,
    }),
    tokens: new Counter({
      name: name('tokens_total'),
      help: 'Tokens reported by the service, by kind.',
      labelNames: ['kind'] as const,
      registers,
    }),
    webSearchCalls: new Counter({
      name: name('web_search_calls_total'),
      help: 'Web searches the service performed (each is billed).',
      registers,
    }),
    audioSeconds: new Counter({
      name: name('audio_seconds_total'),
      help: 'Seconds of audio transcribed (in) and synthesized (out).',
      labelNames: ['direction'] as const,
      registers,
    }),
    platformRateLimited: new Counter({
      name: name('platform_rate_limited_total'),
      help: 'HTTP 429 answers from a chat platform API, by platform and route.',
      labelNames: ['platform', 'route'] as const,
      registers,
    }),
    sharedRateLeases: new Counter({
      name: name('shared_rate_leases_total'),
      help: 'Leases of rate budgets shared through Redis, by platform and outcome (granted, short).',
      labelNames: ['platform', 'outcome'] as const,
      registers,
    }),
    serviceErrors: new Counter({
      name: name('service_errors_total'),
      help: 'Failed service requests, by error code.',
      labelNames: ['code'] as const,
      registers,
    }),
    queueLength: new Gauge({
      name: name('queue_length'),
      help: 'Items waiting, by queue.',
      labelNames: ['queue'] as const,
      registers,
    }),
    inflightReplies: new Gauge({
      name: name('inflight_replies'),
      help: 'Replies being produced right now.',
      registers,
    }),
    feedback: new Counter({
      name: name('feedback_total'),
      help: 'Votes on answers (a changed vote counts as its new rating), by platform and rating.',
      labelNames: ['platform', 'rating'] as const,
      registers,
    }),
    repliesTakenOver: new Counter({
      name: name('replies_taken_over_total'),
      help: 'Replies another instance died writing, finished by this one, by platform.',
      labelNames: ['platform'] as const,
      registers,
    }),
    mcpToolCalls: new Counter({
      name: name('mcp_tool_calls_total'),
      help: 'MCP tool calls, by server, tool and outcome (ok, error, timeout).',
      labelNames: ['server', 'tool', 'outcome'] as const,
      registers,
    }),
    mcpToolSeconds: new Histogram({
      name: name('mcp_tool_call_seconds'),
      help: 'Seconds an MCP tool call took, by server and tool.',
      labelNames: ['server', 'tool'] as const,
      buckets: TOOL_BUCKETS,
      registers,
    }),
    scheduleRuns: new Counter({
      name: name('schedule_runs_total'),
      help: 'Schedule runs, by platform, kind and outcome (ok, failed, skipped, interrupted, deferred, lost).',
      labelNames: ['platform', 'kind', 'outcome'] as const,
      registers,
    }),
  };
}
