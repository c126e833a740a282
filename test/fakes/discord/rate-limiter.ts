import { createHash } from 'node:crypto';

export interface BucketLimit {
  limit: number;
  windowMs: number;
}

/** Named route groups; each route of a group gets its own bucket per major parameter, as on Discord. */
export interface RateLimitConfig {
  /** All bot-authenticated requests (interaction endpoints excepted), per bot. Discord: 50 per second. */
  global: BucketLimit;
  messageCreate: BucketLimit;
  messageEdit: BucketLimit;
  messageDelete: BucketLimit;
  typing: BucketLimit;
  threadCreate: BucketLimit;
  /** Interaction webhooks (followups, @original), per webhook id + token. */
  webhook: BucketLimit;
  commands: BucketLimit;
  default: BucketLimit;
}

export type BucketGroup = Exclude<keyof RateLimitConfig, 'global'>;

export const DEFAULT_RATE_LIMITS: RateLimitConfig = {
  global: { limit: 50, windowMs: 1000 },
  messageCreate: { limit: 5, windowMs: 5000 },
  messageEdit: { limit: 5, windowMs: 5000 },
  messageDelete: { limit: 5, windowMs: 1000 },
  typing: { limit: 5, windowMs: 5000 },
  threadCreate: { limit: 10, windowMs: 10000 },
  webhook: { limit: 5, windowMs: 2000 },
  commands: { limit: 10, windowMs: 20000 },
  default: { limit: 50, windowMs: 1000 },
};

export interface RateLimitHit {
  method: string;
  route: string;
  majorParameter: string;
  bucket: string;
  global: boolean;
  scope: 'user' | 'global';
  retryAfter: number;
  timestamp: number;
}

export type Decision =
  | { allowed: true; headers: Record<string, string> }
  | { allowed: false; headers: Record<string, string>; body: Record<string, unknown>; hit: RateLimitHit };

interface Window {
  remaining: number;
  resetAt: number;
}

/** Fixed-window buckets with Discord's X-RateLimit-* headers and 429 bodies. */
export class RateLimiter {
  readonly #config: RateLimitConfig;
  readonly #windows = new Map<string, Window>();
  #global: Window = { remaining: 0, resetAt: 0 };

  constructor(config: RateLimitConfig) {
    this.#config = config;
  }

  /** Checks the global limit; call first for requests it applies to. */
  takeGlobal(method: string, route: string, now: number): Decision {
    const { limit, windowMs } = this.#config.global;
    if (now >= this.#global.resetAt) this.#global = { remaining: limit, resetAt: now + windowMs };
    if (this.#global.remaining > 0) {
      this.#global.remaining--;
      return { allowed: true, headers: {} };
    }
    const retryAfter = (this.#global.resetAt - now) / 1000;
    return {
      allowed: false,
      headers: {
        'Retry-After': String(Math.ceil(retryAfter)),
        'X-RateLimit-Global': 'true',
        'X-RateLimit-Scope': 'global',
      },
      body: { message: 'You are being rate limited.', retry_after: round3(retryAfter), global: true, code: 0 },
      hit: { method, route, majorParameter: '', bucket: 'global', global: true, scope: 'global', retryAfter, timestamp: now },
    };
  }

  take(group: BucketGroup, method: string, route: string, majorParameter: string, now: number): Decision {
    const { limit, windowMs } = this.#config[group];
    const bucket = bucketHash(`${method} ${route}`);
    const key = `${bucket}:${majorParameter}`;
    let window = this.#windows.get(key);
    if (!window || now >= window.resetAt) {
      window = { remaining: limit, resetAt: now + windowMs };
      this.#windows.set(key, window);
    }
    const allowed = window.remaining > 0;
    if (allowed) window.remaining--;
    const resetAfter = (window.resetAt - now) / 1000;
    const headers: Record<string, string> = {
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': String(window.remaining),
      'X-RateLimit-Reset': (window.resetAt / 1000).toFixed(3),
      'X-RateLimit-Reset-After': resetAfter.toFixed(3),
      'X-RateLimit-Bucket': bucket,
    };
    if (allowed) return { allowed: true, headers };
    return {
      allowed: false,
      headers: { ...headers, 'Retry-After': String(Math.ceil(resetAfter)), 'X-RateLimit-Scope': 'user' },
      body: { message: 'You are being rate limited.', retry_after: round3(resetAfter), global: false, code: 0 },
      hit: { method, route, majorParameter, bucket, global: false, scope: 'user', retryAfter: resetAfter, timestamp: now },
    };
  }
}

function bucketHash(name: string): string {
  return createHash('sha1').update(name).digest('hex').slice(0, 32);
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
