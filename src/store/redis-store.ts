import { randomUUID } from 'node:crypto';
import KeyvRedis, { createClient, Keyv } from '@keyv/redis';
import { KeyvStoreBase } from './keyv-store-base.ts';
import { exchangeTokensScript, incrementScript, releaseLockScript, renewLockScript, takeTokensScript } from './redis-scripts.ts';
import type { CounterIncrement, MessageListener, ScoredMember, Store, TokenBucketOptions, TokenBucketResult, Unsubscribe } from './store.ts';
import { checkScore } from './sorted-set.ts';
import { bucketIdleTtlMs, checkBucketOptions, checkExchange, type TokenExchange } from './token-bucket.ts';

/**
 * Fails at start when the server is unreachable; once connected, reconnects by itself after a drop. While it is
 * disconnected, commands fail at once instead of queueing until the server is back.
 */
function createRedisClient(url: string) {
  let connectedOnce = false;
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 5000,
      reconnectStrategy: (retries, cause) => (connectedOnce ? Math.min(retries * 200, 5000) : cause),
    },
  });
  client.on('ready', () => {
    connectedOnce = true;
  });
  client.on('error', () => {
    // Each failed command rejects with its own error; this listener only keeps the emitter from throwing.
  });
  return client;
}

type RedisClient = ReturnType<typeof createRedisClient>;

/** Keys of the atomic operations; Keyv's own keys live under `herald::`. */
const PREFIX = 'herald:';

/**
 * A Store on a Redis server, shared by every bot instance pointed at it. Locks are SET NX PX with a
 * compare-and-delete release; buckets and counters are Lua scripts, so each operation is atomic.
 */
export class RedisStore extends KeyvStoreBase implements Store {
  readonly kind = 'redis';
  readonly #client: RedisClient;
  /** A connection in subscriber mode takes no other commands, so subscriptions get their own, opened on first use. */
  #subscriber: Promise<RedisClient> | undefined;

  private constructor(client: RedisClient) {
    // Without throwOnErrors a failed read looks like a missing key: a conversation would go on without its history.
    const adapter = new KeyvRedis(client, { namespace: 'herald', throwOnErrors: true });
    super(new Keyv({ store: adapter, namespace: 'herald', useKeyPrefix: false }));
    this.#client = client;
  }

  /** Connects (failing fast when the server is unreachable) and returns the store. */
  static async connect(url: string): Promise<RedisStore> {
    const client = createRedisClient(url);
    await client.connect();
    return new RedisStore(client);
  }

  async acquireLock(key: string, ttlMs: number): Promise<string | null> {
    const token = randomUUID();
    const reply = await this.#client.set(PREFIX + key, token, { condition: 'NX', expiration: { type: 'PX', value: ttlMs } });
    return reply === 'OK' ? token : null;
  }

  async renewLock(key: string, token: string, ttlMs: number): Promise<boolean> {
    const reply = await this.#client.eval(renewLockScript, { keys: [PREFIX + key], arguments: [token, String(ttlMs)] });
    return Number(reply) === 1;
  }

  async releaseLock(key: string, token: string): Promise<boolean> {
    const reply = await this.#client.eval(releaseLockScript, { keys: [PREFIX + key], arguments: [token] });
    return Number(reply) === 1;
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    const reply = await this.#client.set(PREFIX + key, value, { condition: 'NX', expiration: { type: 'PX', value: ttlMs } });
    return reply === 'OK';
  }

  async takeTokens(bucketKey: string, options: TokenBucketOptions): Promise<TokenBucketResult> {
    const { capacity, refillPerSecond, cost } = checkBucketOptions(options);
    const reply = (await this.#client.eval(takeTokensScript, {
      keys: [PREFIX + bucketKey],
      arguments: [String(capacity), String(refillPerSecond), String(cost), String(bucketIdleTtlMs({ capacity, refillPerSecond }))],
    })) as [number, string, number];
    return { allowed: Number(reply[0]) === 1, remaining: Number(reply[1]), retryAfterMs: Number(reply[2]) };
  }

  async exchangeTokens(bucketKey: string, exchange: TokenExchange) {
    const { capacity, refillPerSecond, giveBack, want } = checkExchange(exchange);
    const reply = (await this.#client.eval(exchangeTokensScript, {
      keys: [PREFIX + bucketKey],
      arguments: [String(capacity), String(refillPerSecond), String(giveBack), String(want), String(bucketIdleTtlMs(exchange))],
    })) as [number, number];
    return { granted: Number(reply[0]), retryAfterMs: Number(reply[1]) };
  }

  async incrementBy(key: string, n: number, ttlMs?: number): Promise<number> {
    const reply = await this.#client.eval(incrementScript, { keys: [PREFIX + key], arguments: [String(n), String(ttlMs ?? 0)] });
    return Number(reply);
  }

  async incrementMany(increments: readonly CounterIncrement[]): Promise<void> {
    if (increments.length === 0) return;
    const multi = this.#client.multi();
    for (const { key, n, ttlMs } of increments) {
      multi.eval(incrementScript, { keys: [PREFIX + key], arguments: [String(n), String(ttlMs ?? 0)] });
    }
    await multi.exec();
  }

  async readCounters(keys: readonly string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    const values = await this.#client.mGet(keys.map((key) => PREFIX + key));
    return values.map((value) => (value === null ? 0 : Number(value)));
  }

  async sortedAdd(set: string, member: string, score: number): Promise<void> {
    checkScore(score);
    await this.#client.zAdd(PREFIX + set, { score, value: member });
  }

  async sortedRemove(set: string, member: string): Promise<boolean> {
    return (await this.#client.zRem(PREFIX + set, member)) > 0;
  }

  async sortedUpTo(set: string, maxScore: number, limit: number): Promise<ScoredMember[]> {
    if (limit <= 0) return [];
    const max = maxScore === Infinity ? '+inf' : maxScore === -Infinity ? '-inf' : maxScore;
    const found = await this.#client.zRangeByScoreWithScores(PREFIX + set, '-inf', max, { LIMIT: { offset: 0, count: limit } });
    return found.map(({ value, score }) => ({ member: String(value), score: Number(score) }));
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.#client.publish(PREFIX + channel, message);
  }

  async subscribe(channel: string, listener: MessageListener): Promise<Unsubscribe> {
    const subscriber = await this.#subscriberClient();
    const own: MessageListener = (message) => listener(message);
    await subscriber.subscribe(PREFIX + channel, own);
    return async () => {
      if (subscriber.isOpen) await subscriber.unsubscribe(PREFIX + channel, own);
    };
  }

  async close(): Promise<void> {
    const subscriber = await this.#subscriber?.catch(() => undefined);
    if (subscriber?.isOpen) await subscriber.close();
    if (this.#client.isOpen) await this.#client.close();
  }

  #subscriberClient(): Promise<RedisClient> {
    this.#subscriber ??= (async () => {
      const subscriber = this.#client.duplicate();
      subscriber.on('error', () => {
        // Reconnects by itself and subscribes again; a lost message only means a press goes unanswered.
      });
      await subscriber.connect();
      return subscriber;
    })();
    this.#subscriber.catch(() => {
      this.#subscriber = undefined;
    });
    return this.#subscriber;
  }
}
