/**
 * Redis limiter for scale-out. One Lua script checks the minute window and the
 * monthly counter and increments both, atomically, so N instances sharing one
 * Redis let exactly L requests of a grant through a window, never L+1.
 *
 * Redis holds counters only. The durable monthly usage lives in the store: each
 * unit is committed there (group commit, UsageRecorder) before the request is
 * answered. A monthly counter missing from Redis (first use this month, or a
 * Redis that lost its memory) is seeded from the store with SET NX, so the true
 * count comes back on its own.
 */
import { Redis } from 'ioredis';
import { type MonthPeriod, minuteWindow, monthPeriod } from '../domain/dates.js';
import type { Store } from '../storage/store.js';
import {
  type GrantLimits,
  type LimitDecision,
  type Limiter,
  LimiterUnavailableError,
  type LimitState,
  limitState,
  refused,
} from './limiter.js';
import type { UsageRecorder } from './usage-recorder.js';

/**
 * Check-and-consume for a tick's batch, one entry per pair of counters. KEYS
 * are (minute counter, month counter) pairs; ARGV[1] is the minute counter's
 * TTL, then (rpm, monthly, n) per pair: n requests of one grant. Taking the n
 * requests one after the other, each is allowed while both counts are under
 * their limits, so the first `allowed` of them are and the rest are refused;
 * both counters grow by `allowed` at once. Out come four numbers per pair:
 * status (-1 when the month counter is missing: not seeded, nothing consumed),
 * minute used and month used before the batch, and `allowed`.
 */
const CONSUME_BATCH = `
local out = {}
for i = 1, #KEYS / 2 do
  local mk, qk = KEYS[2 * i - 1], KEYS[2 * i]
  local rpm, monthly, n = tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1])
  local m = tonumber(redis.call('GET', mk) or '0')
  local q = redis.call('GET', qk)
  local status, allowed = 0, 0
  if not q then
    status, q = -1, 0
  else
    q = tonumber(q)
    allowed = math.max(0, math.min(n, rpm - m, monthly - q))
    if allowed > 0 then
      if redis.call('INCRBY', mk, allowed) == allowed then redis.call('PEXPIRE', mk, ARGV[1]) end
      redis.call('INCRBY', qk, allowed)
    end
  end
  out[4 * i - 3], out[4 * i - 2], out[4 * i - 1], out[4 * i] = status, m, q, allowed
end
return out
`;

/** Counter pairs per batch script: bounds the time one script holds Redis. */
const MAX_BATCH = 512;
const MINUTE_TTL_MS = 61_000;

/** What one request learns from the batch: outcome (-1 not seeded, 0 minute, 1 month, 2 consumed) and counts after it. */
type Outcome = [outcome: number, minuteUsed: number, monthUsed: number];

/** The requests of one batch on one pair of counters, in arrival order. */
interface Group {
  minuteKey: string;
  monthKey: string;
  rpm: number;
  monthly: number;
  waiting: Array<{ resolve: (o: Outcome) => void; reject: (err: unknown) => void }>;
}

/** The i-th request of a group (0-based), as if the group's requests had been taken one at a time. */
function outcomeOf(g: Group, i: number, m: number, q: number, allowed: number): Outcome {
  if (i < allowed) return [2, m + i + 1, q + i + 1];
  const mAfter = m + allowed;
  return [mAfter >= g.rpm ? 0 : 1, mAfter, q + allowed];
}

const KEY_CACHE_LIMIT = 10_000;

interface Keys {
  window: { start: number; end: number };
  period: MonthPeriod;
  minuteKey: string;
  monthKey: string;
}

/** DECR of each counter that exists (see `giveBack`). */
const GIVE_BACK = `
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('DECR', KEYS[i]) end
end
return 0
`;

interface LimiterRedis extends Redis {
  mdsConsumeBatch(numberOfKeys: number, ...keysThenArgs: Array<string | number>): Promise<number[]>;
  mdsGiveBack(minuteKey: string, monthKey: string): Promise<number>;
}

const MONTH_TTL_MS = 40 * 86_400_000;
const READY_GRACE_MS = 500;

export class RedisLimiter implements Limiter {
  readonly kind = 'redis' as const;

  /** Check-and-consume requests of this tick by counter pair, sent as one script call. */
  private queue = new Map<string, Group>();
  private readonly keyCache = new Map<string, Keys>();

  private constructor(
    private readonly redis: LimiterRedis,
    private readonly store: Store,
    private readonly recorder: UsageRecorder,
    private readonly prefix: string,
    private readonly onRoundTrip?: (seconds: number) => void,
  ) {}

  static connect(
    url: string,
    store: Store,
    recorder: UsageRecorder,
    prefix = 'mds:',
    /** Told the duration of each batch's script call, in seconds. */
    onRoundTrip?: (seconds: number) => void,
  ): RedisLimiter {
    const redis = new Redis(url, {
      // Fail fast while Redis is away (503), and reconnect in the background.
      enableOfflineQueue: false,
      // No auto-pipelining: a tick's check-and-consume is already one command
      // (sendBatch), and the pipeline ioredis would build around it per tick cost
      // the service about 5 % of its requests with PostgreSQL + Redis (issue #5).
      enableAutoPipelining: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      commandTimeout: 2_000,
      retryStrategy: (times) => Math.min(times * 100, 1_000),
    }) as LimiterRedis;
    redis.on('error', () => {});
    redis.defineCommand('mdsConsumeBatch', { lua: CONSUME_BATCH });
    redis.defineCommand('mdsGiveBack', { numberOfKeys: 2, lua: GIVE_BACK });
    return new RedisLimiter(redis, store, recorder, prefix, onRoundTrip);
  }

  /** Counter keys per grant, rebuilt when the minute or the month turns. */
  private keys(grantId: string, now: number): Keys {
    const cached = this.keyCache.get(grantId);
    if (cached && now >= cached.window.start && now < cached.window.end) return cached;
    const window = minuteWindow(now);
    const period = monthPeriod(now);
    const k = {
      window,
      period,
      minuteKey: `${this.prefix}m:${grantId}:${window.start}`,
      monthKey: `${this.prefix}q:${grantId}:${period.key}`,
    };
    if (this.keyCache.size >= KEY_CACHE_LIMIT) this.keyCache.clear();
    this.keyCache.set(grantId, k);
    return k;
  }

  /** Seeds the monthly counter from the durable usage; NX keeps a concurrent seed or increment. */
  private async seed(grantId: string, monthKey: string, period: string): Promise<void> {
    const used = await this.store.getUsage(grantId, period);
    await this.redis.set(monthKey, used, 'PX', MONTH_TTL_MS, 'NX');
  }

  /**
   * Commands are not queued while Redis is away (they fail into a 503 at once);
   * a connection that is being (re)established gets a short grace instead.
   */
  private async connected(): Promise<void> {
    if (this.redis.status === 'ready') return;
    if (this.redis.status === 'end' || this.redis.status === 'close') return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, READY_GRACE_MS);
      this.redis.once('ready', done);
    });
  }

  /**
   * Queues a check-and-consume for this tick's batch. Under load one script call
   * (one round trip, one script run) carries every request of the tick, where a
   * call per request would cost Redis and this process a command each.
   */
  private consumeBatched(minuteKey: string, monthKey: string, grant: GrantLimits): Promise<Outcome> {
    return new Promise((resolve, reject) => {
      let group = this.queue.get(minuteKey);
      if (!group) {
        if (this.queue.size === 0) setImmediate(() => void this.sendBatch());
        else if (this.queue.size >= MAX_BATCH) void this.sendBatch();
        group = {
          minuteKey,
          monthKey,
          rpm: grant.requestsPerMinute,
          monthly: grant.monthlyRequestLimit,
          waiting: [],
        };
        this.queue.set(minuteKey, group);
      }
      group.waiting.push({ resolve, reject });
    });
  }

  private async sendBatch(): Promise<void> {
    const batch = [...this.queue.values()];
    if (batch.length === 0) return;
    this.queue = new Map();
    try {
      await this.connected();
      const keys: string[] = [];
      const args: number[] = [MINUTE_TTL_MS];
      for (const g of batch) {
        keys.push(g.minuteKey, g.monthKey);
        args.push(g.rpm, g.monthly, g.waiting.length);
      }
      const started = performance.now();
      const out = await this.redis.mdsConsumeBatch(keys.length, ...keys, ...args);
      this.onRoundTrip?.((performance.now() - started) / 1000);
      batch.forEach((g, j) => {
        const [status, m, q, allowed] = out.slice(4 * j, 4 * j + 4) as [number, number, number, number];
        g.waiting.forEach((w, i) => {
          w.resolve(status === -1 ? [-1, m, 0] : outcomeOf(g, i, m, q, allowed));
        });
      });
    } catch (err) {
      for (const g of batch) for (const w of g.waiting) w.reject(err);
    }
  }

  consume(grant: GrantLimits, now: number): Promise<LimitDecision> {
    const k = this.keys(grant.id, now);
    return this.consumeBatched(k.minuteKey, k.monthKey, grant)
      .then((result) =>
        result[0] !== -1
          ? result
          : this.seed(grant.id, k.monthKey, k.period.key).then(() =>
              this.consumeBatched(k.minuteKey, k.monthKey, grant),
            ),
      )
      .then(
        (result) => this.decide(grant, now, k, result),
        (err: unknown) => {
          throw new LimiterUnavailableError(err);
        },
      );
  }

  private decide(grant: GrantLimits, now: number, k: Keys, result: Outcome): Promise<LimitDecision> {
    const [outcome, minuteUsed, monthUsed] = result;
    const state = limitState(grant, now, minuteUsed, monthUsed);
    if (outcome === 0) return Promise.resolve(refused(state, 'rate_limited', k.window.end));
    if (outcome === 1) return Promise.resolve(refused(state, 'quota_exceeded', k.period.end));
    if (outcome !== 2) throw new LimiterUnavailableError(new Error('monthly counter could not be seeded'));
    const decision = state as LimitDecision;
    decision.allowed = true;
    return this.recorder.record(grant.id, k.period.key).then(
      () => decision,
      async (err: unknown) => {
        await this.giveBack(k.minuteKey, k.monthKey).catch(() => {});
        throw new LimiterUnavailableError(err);
      },
    );
  }

  async peek(grant: GrantLimits, now: number): Promise<LimitState> {
    const k = this.keys(grant.id, now);
    try {
      await this.connected();
      const [minute, month] = await this.redis.mget(k.minuteKey, k.monthKey);
      const monthUsed = month === null ? await this.store.getUsage(grant.id, k.period.key) : Number(month);
      return limitState(grant, now, Number(minute ?? 0), monthUsed);
    } catch (err) {
      throw new LimiterUnavailableError(err);
    }
  }

  /**
   * Gives a unit back to counters that still exist. A plain DECR on a counter
   * Redis has lost would create it at -1, without an expiry: the month would then
   * never be seeded from the store again, and its quota would start over.
   */
  private async giveBack(minuteKey: string, monthKey: string): Promise<void> {
    await this.redis.mdsGiveBack(minuteKey, monthKey);
  }

  async refund(grant: GrantLimits, now: number): Promise<void> {
    const k = this.keys(grant.id, now);
    await this.giveBack(k.minuteKey, k.monthKey);
    await this.recorder.record(grant.id, k.period.key, -1);
  }

  async ping(): Promise<void> {
    await this.connected();
    await this.redis.ping();
  }

  async close(): Promise<void> {
    await this.recorder.flush().catch(() => {});
    this.redis.disconnect();
  }
}
