/**
 * The Redis limiter's Lua scripts (the atomic steps of redis.ts) and the
 * connection that runs them: ioredis options chosen to fail fast while Redis
 * is away, and the scripts defined as commands of that connection.
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';

/**
 * The script's clock and calendar: `now` (epoch ms) from Redis's TIME, unless
 * the caller passes its own in ARGV[1] (tests that move time); the minute
 * window it falls in; and its UTC month as `YYYY-MM` (days to civil date:
 * H. Hinnant's algorithm, exact for any epoch day).
 */
const CLOCK = `
local now
if ARGV[1] ~= '' then now = tonumber(ARGV[1]) else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local window = now - (now % 60000)
local z = math.floor(now / 86400000) + 719468
local era = math.floor(z / 146097)
local doe = z - era * 146097
local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
local mp = math.floor((5 * doy + 2) / 153)
local month = mp < 10 and mp + 3 or mp - 9
local year = yoe + era * 400
if month <= 2 then year = year + 1 end
local period = string.format('%04d-%02d', year, month)
local w = string.format('%.0f', window)
`;

/**
 * Check-and-consume for a batch of grants of one slot. KEYS are (minute hash,
 * month hash) pairs; ARGV[1] the caller's clock or '', ARGV[2] the minute
 * hash's TTL, then (rpm, monthly, n) per pair: n requests of one grant. Taking
 * the n requests one after the other, each is allowed while both counts are
 * under their limits, so the first \`allowed\` of them are and the rest are
 * refused; both counters grow by \`allowed\` at once. The minute hash holds the
 * window it counts (w) and its count (n); the month hash one field per month.
 * Out come the clock, the period, then four numbers per pair: status (-1 when
 * the month is missing: not seeded, nothing consumed), minute used and month
 * used before the batch, and \`allowed\`.
 */
const CONSUME_BATCH = `${CLOCK}
local out = {now, period}
for i = 1, #KEYS / 2 do
  local mk, qk = KEYS[2 * i - 1], KEYS[2 * i]
  local rpm, monthly, n = tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1]), tonumber(ARGV[3 * i + 2])
  local m = 0
  local held = redis.call('HMGET', mk, 'w', 'n')
  if held[1] == w then m = tonumber(held[2]) or 0 end
  local q = redis.call('HGET', qk, period)
  local status, allowed = 0, 0
  if not q then
    status, q = -1, 0
  else
    q = tonumber(q)
    allowed = math.max(0, math.min(n, rpm - m, monthly - q))
    if allowed > 0 then
      redis.call('HSET', mk, 'w', w, 'n', m + allowed)
      redis.call('PEXPIRE', mk, ARGV[2])
      redis.call('HINCRBY', qk, period, allowed)
    end
  end
  out[4 * i - 1], out[4 * i], out[4 * i + 1], out[4 * i + 2] = status, m, q, allowed
end
return out
`;

/** Current counts without consuming: clock, period, minute used, month used (nil: not seeded). */
const PEEK = `${CLOCK}
local held = redis.call('HMGET', KEYS[1], 'w', 'n')
local m = 0
if held[1] == w then m = tonumber(held[2]) or 0 end
return {now, period, m, redis.call('HGET', KEYS[2], period)}
`;

/**
 * Seeds a month from the durable usage: HSETNX keeps a concurrent seed or
 * increment. Months before it are dropped: nothing counts against them now.
 */
const SEED = `
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if field < ARGV[1] then redis.call('HDEL', KEYS[1], field) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 0
`;

/**
 * Gives units back to the window and month they were taken from, where those
 * counters still exist. Creating one here (at -1, say) would keep the month
 * from ever being seeded from the store again, and its quota would start over.
 */
const GIVE_BACK = `
local count = tonumber(ARGV[3])
local held = redis.call('HMGET', KEYS[1], 'w', 'n')
if held[1] == ARGV[1] then
  redis.call('HSET', KEYS[1], 'n', math.max(0, (tonumber(held[2]) or 0) - count))
end
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then redis.call('HINCRBY', KEYS[2], ARGV[2], -count) end
return 0
`;

/**
 * Sets a month counter to the store's count (docs/decisions.md, 59): ARGV[1]
 * the period, ARGV[2] the counter as read before the store was (R1), ARGV[3]
 * the stored usage. Units counted since R1 are kept on top. A missing counter
 * is left missing (the next use seeds it). Returns {counter before, after},
 * or {-1} when missing.
 */
const RECONCILE = `
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then return {-1} end
cur = tonumber(cur)
local target = tonumber(ARGV[3]) + (cur - tonumber(ARGV[2]))
if target ~= cur then redis.call('HSET', KEYS[1], ARGV[1], target) end
return {cur, target}
`;

export type Commands = {
  mdsConsumeBatch(numberOfKeys: number, ...keysThenArgs: Array<string | number>): Promise<unknown[]>;
  mdsPeek(
    minuteKey: string,
    monthKey: string,
    clock: string,
  ): Promise<[number, string, number, string | null]>;
  mdsSeed(monthKey: string, period: string, used: number, ttlMs: number): Promise<number>;
  mdsReconcile(monthKey: string, period: string, before: string, used: number): Promise<[number, number?]>;
  mdsGiveBack(
    minuteKey: string,
    monthKey: string,
    window: string,
    period: string,
    count: number,
  ): Promise<number>;
};
export type LimiterRedis = (Redis | Cluster) & Commands;

/** ioredis options from a redis:// or rediss:// URL, for a Cluster's nodes. */
function nodeOptions(url: string): { host: string; port: number; options: RedisOptions } {
  const u = new URL(url);
  const options: RedisOptions = {};
  if (u.username) options.username = decodeURIComponent(u.username);
  if (u.password) options.password = decodeURIComponent(u.password);
  if (u.protocol === 'rediss:') options.tls = {};
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || 6379), options };
}

/** A connection (or a cluster client) with the scripts defined as commands. */
export function openRedis(url: string, cluster: boolean): LimiterRedis {
  const common = {
    // Fail fast while Redis is away (503), and reconnect in the background.
    enableOfflineQueue: false,
    // No auto-pipelining: a tick's check-and-consume is already one command
    // (sendBatch), and the pipeline ioredis would build around it per tick cost
    // the service about 5 % of its requests with PostgreSQL + Redis (docs/performance-notes.md).
    enableAutoPipelining: false,
  };
  const perNode: RedisOptions = {
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 100, 1_000),
  };
  let redis: LimiterRedis;
  if (cluster) {
    const seed = nodeOptions(url);
    redis = new Cluster([{ host: seed.host, port: seed.port }], {
      ...common,
      redisOptions: { ...perNode, ...seed.options },
      clusterRetryStrategy: (times) => Math.min(times * 100, 1_000),
      // A slot moved to another node (resharding, failover) is followed, a few times.
      maxRedirections: 8,
    }) as LimiterRedis;
  } else {
    redis = new Redis(url, { ...common, ...perNode }) as LimiterRedis;
  }
  redis.on('error', () => {});
  redis.defineCommand('mdsConsumeBatch', { lua: CONSUME_BATCH });
  redis.defineCommand('mdsPeek', { numberOfKeys: 2, lua: PEEK });
  redis.defineCommand('mdsSeed', { numberOfKeys: 1, lua: SEED });
  redis.defineCommand('mdsGiveBack', { numberOfKeys: 2, lua: GIVE_BACK });
  redis.defineCommand('mdsReconcile', { numberOfKeys: 1, lua: RECONCILE });
  return redis;
}
