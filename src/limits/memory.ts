/**
 * In-process limiter for the embedded default. Node runs our code on one thread,
 * so a check and its consume, done without an await between them, are atomic.
 * Monthly counts start from the durable usage in the store and every consumed
 * unit is committed through the UsageRecorder before the request is answered.
 */
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
    private readonly store: Store,
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
    const minuteUsed = c.windowStart === minuteWindow(now).start ? c.minuteUsed : 0;
    return limitState(grant, now, minuteUsed, c.monthUsed);
  }

  async consume(grant: GrantLimits, now: number): Promise<LimitDecision> {
    const c = await this.counters_(grant.id, now);
    // From here to the recorder call there is no await: check and consume are one step.
    const window = minuteWindow(now);
    if (c.windowStart !== window.start) {
      c.windowStart = window.start;
      c.minuteUsed = 0;
    }
    const before = this.state(grant, c, now);
    if (before.minuteRemaining <= 0) {
      return { ...before, allowed: false, reason: 'rate_limited', retryAt: window.end };
    }
    if (before.monthRemaining <= 0) {
      return { ...before, allowed: false, reason: 'quota_exceeded', retryAt: before.monthResetAt };
    }
    c.minuteUsed++;
    c.monthUsed++;
    const period = c.period;
    // The counts after *this* request, taken before the await: concurrent requests
    // consumed while the commit is pending must not show up in this one's headers.
    const after = this.state(grant, c, now);
    try {
      await this.recorder.record(grant.id, period);
    } catch (err) {
      // Not durable, so not counted: give the unit back and let the caller answer 503.
      c.monthUsed--;
      if (c.windowStart === window.start) c.minuteUsed--;
      throw new LimiterUnavailableError(err);
    }
    return { ...after, allowed: true };
  }

  async peek(grant: GrantLimits, now: number): Promise<LimitState> {
    return this.state(grant, await this.counters_(grant.id, now), now);
  }

  async refund(grant: GrantLimits, now: number): Promise<void> {
    const c = this.counters.get(grant.id);
    if (!c) return;
    if (c.windowStart === minuteWindow(now).start && c.minuteUsed > 0) c.minuteUsed--;
    if (c.monthUsed > 0) {
      c.monthUsed--;
      await this.recorder.record(grant.id, c.period, -1).catch(() => {});
    }
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    await this.recorder.flush();
  }
}
