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

/** A request waiting in a tick's batch. */
interface Waiter {
  now: number;
  /** Its grant's month counter was just seeded for it: missing again means Redis cannot keep it. */
  seeded: boolean;
  resolve: (decision: LimitDecision) => void;
  reject: (err: unknown) => void;
}

/** The requests of one batch on one pair of counters, in arrival order. */
interface Group {
  grant: GrantLimits;
  keys: Keys;
  waiting: Waiter[];
}

const KEY_CACHE_LIMIT = 10_000;

interface Keys {
  window: { start: number; end: number };
  period: MonthPeriod;
  minuteKey: string;
  monthKey: string;
}

/** DECRBY ARGV[1] of each counter that exists (see `giveBack`). */
const GIVE_BACK = `
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('DECRBY', KEYS[i], ARGV[1]) end
end
return 0
`;

interface LimiterRedis extends Redis {
  mdsConsumeBatch(numberOfKeys: number, ...keysThenArgs: Array<string | number>): Promise<number[]>;
  mdsGiveBack(minuteKey: string, monthKey: string, count: number): Promise<number>;
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
  consume(grant: GrantLimits, now: number): Promise<LimitDecision> {
    return new Promise((resolve, reject) => {
      this.enqueue(grant, { now, seeded: false, resolve, reject });
    });
  }

  private enqueue(grant: GrantLimits, w: Waiter): void {
    const keys = this.keys(grant.id, w.now);
    let group = this.queue.get(keys.minuteKey);
    if (!group) {
      if (this.queue.size === 0) setImmediate(() => void this.sendBatch());
      else if (this.queue.size >= MAX_BATCH) void this.sendBatch();
      group = { grant, keys, waiting: [] };
      this.queue.set(keys.minuteKey, group);
    }
    group.waiting.push(w);
  }

  private async sendBatch(): Promise<void> {
    const batch = [...this.queue.values()];
    if (batch.length === 0) return;
    this.queue = new Map();
    let out: number[];
    try {
      await this.connected();
      const keys: string[] = [];
      const args: number[] = [MINUTE_TTL_MS];
      for (const g of batch) {
        keys.push(g.keys.minuteKey, g.keys.monthKey);
        args.push(g.grant.requestsPerMinute, g.grant.monthlyRequestLimit, g.waiting.length);
      }
      const started = performance.now();
      out = await this.redis.mdsConsumeBatch(keys.length, ...keys, ...args);
      this.onRoundTrip?.((performance.now() - started) / 1000);
    } catch (err) {
      const unavailable = new LimiterUnavailableError(err);
      for (const g of batch) for (const w of g.waiting) w.reject(unavailable);
      return;
    }
    for (let j = 0; j < batch.length; j++) {
      this.settle(batch[j]!, out[4 * j]!, out[4 * j + 1]!, out[4 * j + 2]!, out[4 * j + 3]!);
    }
  }

  /**
   * A group's outcome: its first `allowed` requests consumed (as if taken one at
   * a time), the rest refused. The consumed units are recorded in the store in
   * one call, and those requests are answered once that commit is durable.
   */
  private settle(g: Group, status: number, m: number, q: number, allowed: number): void {
    const { grant, keys: k } = g;
    if (status === -1) {
      // The month counter is missing (first use this month, or Redis lost it):
      // seeded from the store, then the group's requests are queued again.
      this.seed(grant.id, k.monthKey, k.period.key).then(
        () => {
          for (const w of g.waiting) {
            if (w.seeded) {
              w.reject(new LimiterUnavailableError(new Error('monthly counter could not be seeded')));
            } else {
              w.seeded = true;
              this.enqueue(grant, w);
            }
          }
        },
        (err: unknown) => {
          const unavailable = new LimiterUnavailableError(err);
          for (const w of g.waiting) w.reject(unavailable);
        },
      );
      return;
    }
    const { waiting } = g;
    const mAfter = m + allowed;
    for (let i = allowed; i < waiting.length; i++) {
      const w = waiting[i]!;
      const state = limitState(grant, w.now, mAfter, q + allowed);
      w.resolve(
        mAfter >= grant.requestsPerMinute
          ? refused(state, 'rate_limited', k.window.end)
          : refused(state, 'quota_exceeded', k.period.end),
      );
    }
    if (allowed === 0) return;
    this.recorder.record(grant.id, k.period.key, allowed).then(
      () => {
        for (let i = 0; i < allowed; i++) {
          const w = waiting[i]!;
          // The counts after *this* request: the i-th of the group saw i before it.
          const decision = limitState(grant, w.now, m + i + 1, q + i + 1) as LimitDecision;
          decision.allowed = true;
          w.resolve(decision);
        }
      },
      (err: unknown) => {
        // Not durable, so not counted: the units go back, then the requests get a 503.
        const unavailable = new LimiterUnavailableError(err);
        void this.giveBack(k.minuteKey, k.monthKey, allowed)
          .catch(() => {})
          .then(() => {
            for (let i = 0; i < allowed; i++) waiting[i]!.reject(unavailable);
          });
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
  private async giveBack(minuteKey: string, monthKey: string, count = 1): Promise<void> {
    await this.redis.mdsGiveBack(minuteKey, monthKey, count);
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
