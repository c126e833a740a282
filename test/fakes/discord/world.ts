import type { Cdn } from './cdn.ts';
import type { Payloads } from './builders.ts';
import type { RateLimitConfig } from './rate-limiter.ts';
import type { Json, UserRecord } from './records.ts';
import type { Store } from './store.ts';
import type { VoiceServerAddress } from './voice-states.ts';

export interface Receiver {
  intents: number;
}

/** Sends a dispatch to every gateway session whose intents include `intent` (null: no intent needed). */
export interface Dispatcher {
  dispatch(event: string, intent: number | null, build: (receiver: Receiver) => Json): void;
  /** IDENTIFYs accepted so far, for session_start_limit. */
  readonly identifyCount: number;
}

export interface ResolvedOptions {
  token: string;
  heartbeatIntervalMs: number;
  resumeWindowMs: number;
  rateLimits: RateLimitConfig;
  interactionResponseTimeoutMs: number;
  interactionTokenTtlMs: number;
  uploadLimitBytes: number;
  /** Privileged intents switched on for the application (as in the developer portal). */
  privilegedIntents: number;
  voiceEndpoint: string;
  voiceToken: string | null;
  /** Voice servers of single channels, taking the place of the default one above. */
  voiceServers: Map<string, VoiceServerAddress>;
  recommendedShards: number;
  maxConcurrency: number;
  /** The shard count IDENTIFY must name, when the test fixes one. */
  shardCount: number | null;
  maxGuildsPerShard: number;
}

/** What route handlers and services share. */
export interface World {
  store: Store;
  payloads: Payloads;
  cdn: Cdn;
  gateway: Dispatcher;
  options: ResolvedOptions;
  bot: UserRecord;
  applicationId: string;
  applicationName: string;
  /** What GET /gateway/bot answers. */
  gatewayUrl: string;
  /** Wakes up waitFor() callers after a state change. */
  changed(): void;
}
