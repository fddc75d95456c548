/**
 * Longer than 300 lines because it is one class whose tick batching, month seeding and
 * give-backs share one queue and one key cache; its Lua scripts and connection
 * set-up are already apart (redis-scripts.ts).
 *
 * Redis limiter for scale-out. One Lua script checks the minute window and the
 * monthly counter and increments both, atomically, so N instances sharing one
 * Redis (or one Redis Cluster) let exactly L requests of a grant through a
 * window, never L+1.
 *
 * Time comes from Redis (`TIME`, inside the script), not from each instance:
 * instances whose clocks disagree still count in the same window and report
 * the same reset (docs/deployment.md). A grant's counters are two hashes whose names
 * share the hash tag `{grantId}`, so on a Redis Cluster they sit in one slot
 * and the script that touches both stays atomic; one script call carries the
 * grants of one slot.
 *
 * Redis holds counters only. The durable monthly usage lives in the store: each
 * unit is committed there (group commit, UsageRecorder) before the request is
 * answered. A monthly counter missing from Redis (first use this month, or a
 * Redis that lost its memory) is seeded from the store with HSETNX, so the true
 * count comes back on its own.
 */

import calculateSlot from 'cluster-key-slot';
import { Cluster } from 'ioredis';
import { defaultOf } from '../config/environment.js';
import { MINUTE_MS, utcDay } from '../domain/dates.js';
import type { UsageRepository } from '../storage/store.js';
import {
  allowedAt,
  type GrantLimits,
  type LimitDecision,
  type Limiter,
  LimiterUnavailableError,
  type LimitState,
  limitState,
  refusedAt,
  rethrowLimiterFailure,
} from './limiter.js';
import { MonthReconciler } from './redis-reconcile.js';
import { type LimiterRedis, openRedis } from './redis-scripts.js';
import type { UsageRecorder } from './usage-recorder.js';

/** Grants per script call: bounds the time one script holds Redis. */
const MAX_BATCH = 512;
/** How long Redis keeps a grant's minute counter, and its month counter, after their last write. */
export const MINUTE_TTL_MS = 61_000;
export const MONTH_TTL_MS = 40 * 86_400_000;
const READY_GRACE_MS = 500;

/** A request waiting in a tick's batch. */
interface Waiter {
  /** The caller's clock: used only when the limiter runs on the caller's clock. */
  now: number;
  /** Its grant's month was just seeded for it: missing again means Redis cannot keep it. */
  seeded: boolean;
  /** The key's public id: the day's count is per key. */
  keyId: string;
  resolve: (decision: LimitDecision) => void;
  reject: (err: unknown) => void;
}

/** The requests of one tick on one grant, in arrival order. */
interface Group {
  grant: GrantLimits;
  keys: Keys;
  waiting: Waiter[];
}

interface Keys {
  minuteKey: string;
  monthKey: string;
  /** The cluster slot both keys hash to (0 outside a cluster). */
  slot: number;
}

const KEY_CACHE_LIMIT = 10_000;

/** A grant's minute and month counters; the braces make them one hash slot on a cluster. */
export function counterKeys(prefix: string, grantId: string): { minuteKey: string; monthKey: string } {
  return { minuteKey: `${prefix}{${grantId}}:m`, monthKey: `${prefix}{${grantId}}:q` };
}

export interface RedisLimiterOptions {
  /** Every key starts with it (tests use one per run; deployments sharing a Redis, one each). */
  prefix?: string;
  /** `MDS_REDIS_CLUSTER=1`: the URL is a seed node of a Redis Cluster. */
  cluster?: boolean;
  /**
   * Whose clock names the windows: Redis's (the default, so instances agree)
   * or the caller's \`now\` (tests that move time).
   */
  clock?: 'redis' | 'caller';
  /** Told the duration of each script call, in seconds. */
  onRoundTrip?: (seconds: number) => void;
}

export class RedisLimiter implements Limiter {
  readonly kind = 'redis' as const;

  /** Check-and-consume requests of this tick by grant, sent as one script call per slot. */
  private queue = new Map<string, Group>();
  private readonly keyCache = new Map<string, Keys>();
  private readonly callerClock: boolean;
  /** Month counters set back to the store after failures (redis-reconcile.ts). */
  readonly reconciler: MonthReconciler;

  private constructor(
    private readonly redis: LimiterRedis,
    private readonly store: UsageRepository,
    private readonly recorder: UsageRecorder,
    private readonly prefix: string,
    private readonly cluster: boolean,
    clock: 'redis' | 'caller',
    private readonly onRoundTrip?: (seconds: number) => void,
  ) {
    this.callerClock = clock === 'caller';
    this.reconciler = new MonthReconciler(redis, store, () => this.clockArg(Date.now()));
  }

  static connect(
    url: string,
    store: UsageRepository,
    recorder: UsageRecorder,
    options: RedisLimiterOptions = {},
  ): RedisLimiter {
    const redis = openRedis(url, options.cluster === true);
    return new RedisLimiter(
      redis,
      store,
      recorder,
      options.prefix ?? defaultOf('MDS_REDIS_PREFIX'),
      options.cluster === true,
      options.clock ?? 'redis',
      options.onRoundTrip,
    );
  }

  /** A grant's two counters; the braces make them one hash slot on a cluster. */
  private keys(grantId: string): Keys {
    const cached = this.keyCache.get(grantId);
    if (cached) return cached;
    const { minuteKey, monthKey } = counterKeys(this.prefix, grantId);
    const k: Keys = { minuteKey, monthKey, slot: this.cluster ? calculateSlot(minuteKey) : 0 };
    if (this.keyCache.size >= KEY_CACHE_LIMIT) this.keyCache.clear();
    this.keyCache.set(grantId, k);
    return k;
  }

  private clockArg(now: number): string {
    return this.callerClock ? String(now) : '';
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
  consume(grant: GrantLimits, now: number, keyId = ''): Promise<LimitDecision> {
    return new Promise((resolve, reject) => {
      this.enqueue(grant, { now, seeded: false, keyId, resolve, reject });
    });
  }

  private enqueue(grant: GrantLimits, w: Waiter): void {
    let group = this.queue.get(grant.id);
    if (!group) {
      if (this.queue.size === 0) setImmediate(() => void this.sendBatch());
      else if (this.queue.size >= MAX_BATCH) void this.sendBatch();
      group = { grant, keys: this.keys(grant.id), waiting: [] };
      this.queue.set(grant.id, group);
    }
    group.waiting.push(w);
  }

  private sendBatch(): void {
    if (this.queue.size === 0) return;
    const groups = [...this.queue.values()];
    this.queue = new Map();
    if (!this.cluster) {
      void this.sendSlot(groups);
      return;
    }
    // A script may touch the keys of one slot only: one call per slot, in parallel.
    const bySlot = new Map<number, Group[]>();
    for (const g of groups) {
      const list = bySlot.get(g.keys.slot);
      if (list) list.push(g);
      else bySlot.set(g.keys.slot, [g]);
    }
    for (const list of bySlot.values()) void this.sendSlot(list);
  }

  private async sendSlot(batch: Group[]): Promise<void> {
    let out: unknown[];
    try {
      await this.connected();
      const keys: string[] = [];
      // The caller's clock, when it is the one in use, is the first request's.
      const args: Array<string | number> = [this.clockArg(batch[0]!.waiting[0]!.now), MINUTE_TTL_MS];
      for (const g of batch) {
        keys.push(g.keys.minuteKey, g.keys.monthKey);
        args.push(g.grant.requestsPerMinute, g.grant.monthlyRequestLimit, g.waiting.length);
      }
      const started = performance.now();
      out = await this.redis.mdsConsumeBatch(keys.length, ...keys, ...args);
      this.onRoundTrip?.((performance.now() - started) / 1000);
    } catch (err) {
      // A timeout may come after the script ran (a stalled Redis runs it when it
      // resumes): its units would stay counted, so these months are reconciled.
      const unavailable = new LimiterUnavailableError(err);
      for (const g of batch) {
        this.reconciler.mark(g.grant.id, g.keys);
        for (const w of g.waiting) w.reject(unavailable);
      }
      return;
    }
    const at = Number(out[0]);
    const period = String(out[1]);
    for (let j = 0; j < batch.length; j++) {
      const o = 2 + 4 * j;
      this.settle(
        batch[j]!,
        at,
        period,
        Number(out[o]),
        Number(out[o + 1]),
        Number(out[o + 2]),
        Number(out[o + 3]),
      );
    }
  }

  /**
   * A group's outcome: its first `allowed` requests consumed (as if taken one at
   * a time), the rest refused. The consumed units are recorded in the store in
   * one call, and those requests are answered once that commit is durable.
   */
  private settle(
    g: Group,
    at: number,
    period: string,
    status: number,
    m: number,
    q: number,
    allowed: number,
  ): void {
    const { grant, keys: k } = g;
    if (status === -1) {
      // The month is missing (first use this month, or Redis lost it): seeded from
      // the store, then the group's requests are queued again.
      this.store
        .getUsage(grant.id, period)
        .then((used) => this.redis.mdsSeed(k.monthKey, period, used, MONTH_TTL_MS))
        .then(
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
    const windowEnd = at - (at % MINUTE_MS) + MINUTE_MS;
    if (allowed < waiting.length) {
      const refusal = refusedAt(grant, at, mAfter, q + allowed, windowEnd);
      // Refused requests share one decision: the same state, nothing consumed.
      for (let i = allowed; i < waiting.length; i++) waiting[i]!.resolve(refusal);
    }
    if (allowed === 0) return;
    const day = utcDay(at);
    let recorded!: Promise<void>;
    for (let i = 0; i < allowed; i++)
      recorded = this.recorder.record(grant.id, period, day, waiting[i]!.keyId);
    this.reconciler.inFlight(grant.id, allowed);
    recorded.then(
      () => {
        this.reconciler.inFlight(grant.id, -allowed);
        // The counts after *this* request: the i-th of the group saw i before it.
        for (let i = 0; i < allowed; i++) waiting[i]!.resolve(allowedAt(grant, at, m + i + 1, q + i + 1));
      },
      (err: unknown) => {
        // Not durable, so not counted: the units go back, then the requests get a 503.
        const unavailable = new LimiterUnavailableError(err);
        void this.redis
          .mdsGiveBack(k.minuteKey, k.monthKey, String(at - (at % MINUTE_MS)), period, allowed)
          .catch(() => {})
          .then(() => {
            // A failure on either side: the month is set back to the store's count.
            this.reconciler.mark(grant.id, k);
            this.reconciler.inFlight(grant.id, -allowed);
            for (let i = 0; i < allowed; i++) waiting[i]!.reject(unavailable);
          });
      },
    );
  }

  async peek(grant: GrantLimits, now: number): Promise<LimitState> {
    const k = this.keys(grant.id);
    try {
      await this.connected();
      const [at, period, minute, month] = await this.redis.mdsPeek(
        k.minuteKey,
        k.monthKey,
        this.clockArg(now),
      );
      const monthUsed = month === null ? await this.store.getUsage(grant.id, period) : Number(month);
      return limitState(grant, Number(at), Number(minute), monthUsed);
    } catch (err) {
      throw new LimiterUnavailableError(err);
    }
  }

  /**
   * Gives the unit back to the Redis counters it was taken from, then to the
   * durable month (retried until committed: UsageRecorder.giveBack).
   */
  async refund(grant: GrantLimits, consumed: LimitState, keyId = ''): Promise<void> {
    const k = this.keys(grant.id);
    const durable = this.recorder.giveBack(grant.id, consumed.period, utcDay(consumed.at), keyId);
    await this.redis
      .mdsGiveBack(k.minuteKey, k.monthKey, String(consumed.window), consumed.period, 1)
      .catch(() => this.reconciler.mark(grant.id, k));
    await durable.catch(rethrowLimiterFailure);
  }

  async ping(): Promise<void> {
    await this.pingRedis().catch(rethrowLimiterFailure);
  }

  private async pingRedis(): Promise<void> {
    await this.connected();
    if (this.redis instanceof Cluster) {
      // The cluster must cover every slot (a master down fails it once the others
      // agree, after cluster-node-timeout), and every master we know must answer.
      const masters = this.redis.nodes('master');
      const info = String(await masters[0]!.cluster('INFO'));
      if (!info.includes('cluster_state:ok')) throw new Error('cluster state is not ok');
      await Promise.all(masters.map((node) => node.ping()));
    } else {
      await this.redis.ping();
    }
  }

  async close(): Promise<void> {
    this.reconciler.close();
    await this.recorder.flush().catch(() => {});
    this.redis.disconnect();
  }
}
