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
import { minuteWindow, monthPeriod } from '../domain/dates.js';
import type { Store } from '../storage/store.js';
import {
  type GrantLimits,
  type LimitDecision,
  type Limiter,
  LimiterUnavailableError,
  type LimitState,
  limitState,
} from './limiter.js';
import type { UsageRecorder } from './usage-recorder.js';

// Returns {outcome, minuteUsed, monthUsed}; outcome -1 = month counter not seeded,
// 0 = minute exhausted, 1 = month exhausted, 2 = consumed.
const CONSUME = `
local m = tonumber(redis.call('GET', KEYS[1]) or '0')
local q = redis.call('GET', KEYS[2])
if not q then return {-1, m, 0} end
q = tonumber(q)
if m >= tonumber(ARGV[1]) then return {0, m, q} end
if q >= tonumber(ARGV[2]) then return {1, m, q} end
m = redis.call('INCR', KEYS[1])
if m == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
q = redis.call('INCR', KEYS[2])
return {2, m, q}
`;

interface LimiterRedis extends Redis {
  mdsConsume(
    minuteKey: string,
    monthKey: string,
    rpm: number,
    monthly: number,
    ttl: number,
  ): Promise<number[]>;
}

const MONTH_TTL_MS = 40 * 86_400_000;
const READY_GRACE_MS = 500;

export class RedisLimiter implements Limiter {
  readonly kind = 'redis' as const;

  private constructor(
    private readonly redis: LimiterRedis,
    private readonly store: Store,
    private readonly recorder: UsageRecorder,
    private readonly prefix: string,
  ) {}

  static connect(url: string, store: Store, recorder: UsageRecorder, prefix = 'mds:'): RedisLimiter {
    const redis = new Redis(url, {
      // Fail fast while Redis is away (503), and reconnect in the background.
      enableOfflineQueue: false,
      // Commands issued in the same tick go out in one write: under load, one
      // round trip carries the check-and-consume of many requests.
      enableAutoPipelining: true,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      commandTimeout: 2_000,
      retryStrategy: (times) => Math.min(times * 100, 1_000),
    }) as LimiterRedis;
    redis.on('error', () => {});
    redis.defineCommand('mdsConsume', { numberOfKeys: 2, lua: CONSUME });
    return new RedisLimiter(redis, store, recorder, prefix);
  }

  private keys(grantId: string, now: number) {
    const window = minuteWindow(now);
    const period = monthPeriod(now);
    return {
      window,
      period,
      minuteKey: `${this.prefix}m:${grantId}:${window.start}`,
      monthKey: `${this.prefix}q:${grantId}:${period.key}`,
    };
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

  async consume(grant: GrantLimits, now: number): Promise<LimitDecision> {
    const k = this.keys(grant.id, now);
    let result: number[];
    try {
      await this.connected();
      result = await this.redis.mdsConsume(
        k.minuteKey,
        k.monthKey,
        grant.requestsPerMinute,
        grant.monthlyRequestLimit,
        61_000,
      );
      if (result[0] === -1) {
        await this.seed(grant.id, k.monthKey, k.period.key);
        result = await this.redis.mdsConsume(
          k.minuteKey,
          k.monthKey,
          grant.requestsPerMinute,
          grant.monthlyRequestLimit,
          61_000,
        );
      }
    } catch (err) {
      throw new LimiterUnavailableError(err);
    }
    const [outcome, minuteUsed, monthUsed] = result as [number, number, number];
    const state = limitState(grant, now, minuteUsed, monthUsed);
    if (outcome === 0) return { ...state, allowed: false, reason: 'rate_limited', retryAt: k.window.end };
    if (outcome === 1) return { ...state, allowed: false, reason: 'quota_exceeded', retryAt: k.period.end };
    if (outcome !== 2) throw new LimiterUnavailableError(new Error('monthly counter could not be seeded'));
    try {
      await this.recorder.record(grant.id, k.period.key);
    } catch (err) {
      await this.giveBack(k.minuteKey, k.monthKey).catch(() => {});
      throw new LimiterUnavailableError(err);
    }
    return { ...state, allowed: true };
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

  private async giveBack(minuteKey: string, monthKey: string): Promise<void> {
    await this.redis.multi().decr(minuteKey).decr(monthKey).exec();
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
