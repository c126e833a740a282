/** Deletes KEYS[1] only when it still holds ARGV[1] (the lock owner's token). */
export const releaseLockScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** Extends KEYS[1] to ARGV[2] ms only when it still holds ARGV[1]. */
export const renewLockScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

/** Reads KEYS[1]'s bucket (capacity ARGV[1], refill per second ARGV[2]) refilled to the server's clock: `tokens`, `now`. */
const refillBucket = `
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'updated')
local tokens = tonumber(state[1])
local updated = tonumber(state[2])
if tokens == nil or updated == nil then
  tokens = capacity
  updated = now
end
tokens = math.min(capacity, tokens + math.max(0, now - updated) * rate / 1000)`;

/**
 * Token bucket, the arithmetic of token-bucket.ts run on the server with the server's clock.
 * ARGV: capacity, refill per second, cost, idle TTL ms. Returns {allowed 0|1, remaining (string), retry ms}.
 */
export const takeTokensScript = `${refillBucket}
local cost = tonumber(ARGV[3])
local allowed = 0
local retry = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
else
  retry = math.ceil((cost - tokens) * 1000 / rate)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'updated', tostring(now))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {allowed, tostring(tokens), retry}`;

/**
 * exchangeWithBucket of token-bucket.ts on the same bucket. ARGV: capacity, refill per second, tokens given back,
 * whole tokens wanted, idle TTL ms. Returns {granted, retry ms}.
 */
export const exchangeTokensScript = `${refillBucket}
local want = tonumber(ARGV[4])
tokens = math.min(capacity, tokens + tonumber(ARGV[3]))
local granted = math.min(want, math.floor(tokens))
tokens = tokens - granted
local retry = 0
if granted < want then retry = math.ceil((1 - tokens) * 1000 / rate) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'updated', tostring(now))
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {granted, retry}`;

/** INCRBYFLOAT that sets a TTL (ARGV[2] ms, 0 for none) only when the counter has none yet. */
export const incrementScript = `
local value = redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])
local ttl = tonumber(ARGV[2])
if ttl > 0 and redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
return value`;
