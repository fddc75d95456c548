/**
 * In-process limiter for the embedded default. Node runs our code on one thread,
 * so a check and its consume, done without an await between them, are atomic.
 * Monthly counts start from the durable usage in the store and every consumed
 * unit is committed through the UsageRecorder before the request is answered.
 */
import { MINUTE_MS, minuteStart, monthPeriod, utcDay } from '../domain/dates.js';
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
import type { UsageRecorder } from './usage-recorder.js';

interface Counters {
  windowStart: number;
  minuteUsed: number;
  period: string;
  monthUsed: number;
}

export class MemoryLimiter implements Limiter {
  readonly kind = 'memory' as const;
  private readonly counters = new Map<string, Counters>();
  private readonly loading = new Map<string, Promise<Counters>>();

  constructor(
    private readonly store: UsageRepository,
    private readonly recorder: UsageRecorder,
  ) {}

  private async counters_(grantId: string, now: number): Promise<Counters> {
    const period = monthPeriod(now).key;
    const c = this.counters.get(grantId);
    if (c && c.period === period) return c;
    let load = this.loading.get(grantId);
    if (!load) {
      load = this.store.getUsage(grantId, period).then(
        (used) => {
          const fresh: Counters = {
            windowStart: c?.windowStart ?? 0,
            minuteUsed: c?.minuteUsed ?? 0,
            period,
            monthUsed: used,
          };
          this.counters.set(grantId, fresh);
          this.loading.delete(grantId);
          return fresh;
        },
        (err: unknown) => {
          this.loading.delete(grantId);
          throw new LimiterUnavailableError(err);
        },
      );
      this.loading.set(grantId, load);
    }
    return load;
  }

  private state(grant: GrantLimits, c: Counters, now: number): LimitState {
    const minuteUsed = c.windowStart === minuteStart(now) ? c.minuteUsed : 0;
    return limitState(grant, now, minuteUsed, c.monthUsed);
  }

  consume(grant: GrantLimits, now: number, keyId = ''): Promise<LimitDecision> {
    const c = this.counters.get(grant.id);
    // Counters of this month in memory (every request but a grant's first of the month
    // and after a restart): no await before the check, one promise in all.
    if (c && c.period === monthPeriod(now).key) return this.consumeFrom(grant, c, now, keyId);
    return this.counters_(grant.id, now).then((loaded) => this.consumeFrom(grant, loaded, now, keyId));
  }

  private consumeFrom(grant: GrantLimits, c: Counters, now: number, keyId: string): Promise<LimitDecision> {
    // From here to the recorder call there is no await: check and consume are one step.
    const windowStart = minuteStart(now);
    if (c.windowStart !== windowStart) {
      c.windowStart = windowStart;
      c.minuteUsed = 0;
    }
    if (c.minuteUsed >= grant.requestsPerMinute || c.monthUsed >= grant.monthlyRequestLimit) {
      return Promise.resolve(refusedAt(grant, now, c.minuteUsed, c.monthUsed, windowStart + MINUTE_MS));
    }
    c.minuteUsed++;
    c.monthUsed++;
    // The counts after *this* request, taken before the commit: concurrent requests
    // consumed while it is pending must not show up in this one's headers.
    const after = allowedAt(grant, now, c.minuteUsed, c.monthUsed);
    return this.recorder.record(grant.id, c.period, utcDay(now), keyId).then(
      () => after,
      (err: unknown) => {
        // Not durable, so not counted: back to the counters (to the window and month it
        // was taken from), and the caller answers 503.
        if (c.period === after.period) c.monthUsed--;
        if (c.windowStart === after.window) c.minuteUsed--;
        throw new LimiterUnavailableError(err);
      },
    );
  }

  async peek(grant: GrantLimits, now: number): Promise<LimitState> {
    return this.state(grant, await this.counters_(grant.id, now), now);
  }

  async refund(grant: GrantLimits, consumed: LimitState, keyId = ''): Promise<void> {
    const c = this.counters.get(grant.id);
    if (c) {
      if (c.windowStart === consumed.window && c.minuteUsed > 0) c.minuteUsed--;
      if (c.period === consumed.period && c.monthUsed > 0) c.monthUsed--;
    }
    await this.recorder
      .giveBack(grant.id, consumed.period, utcDay(consumed.at), keyId)
      .catch(rethrowLimiterFailure);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    await this.recorder.flush();
  }
}
