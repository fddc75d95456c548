/**
 * The Redis month counter brought back to the store's count after a failure
 * on either side (docs/decisions.md, 59). The store is the truth: every unit
 * answered is committed there. Redis can drift from it when a consume script
 * timed out on our side but ran in Redis (a stall: its units were answered
 * 503 and never committed), or when a give-back did not reach Redis. The
 * limiter marks the grants such a failure touched; a sweep then sets their
 * month counter to the stored usage once both answer.
 *
 * Units keep being consumed meanwhile, by this instance and others. The sweep
 * reads the counter (R1), waits SETTLE_MS so that commits of units counted
 * before it land, reads the store (U), then sets the counter to
 * U + (counter now - R1) in one script: units consumed after R1 are kept.
 * When nothing moved (counter still R1, none of this instance's units of the
 * grant awaiting their commit), the result is exact and the grant is clean;
 * otherwise it stays marked and the next sweep does it again, so an error of
 * at most the units in flight is never kept past a quiet second of the grant.
 */
import type { UsageRepository } from '../storage/store.js';
import type { LimiterRedis } from './redis-scripts.js';

const SWEEP_MS = 1_000;
const SETTLE_MS = 1_000;

export interface MonthKeys {
  minuteKey: string;
  monthKey: string;
}

export class MonthReconciler {
  /** By grant: its keys, and the mark's number (a mark made during a sweep keeps the grant marked). */
  private readonly dirty = new Map<string, { k: MonthKeys; mark: number }>();
  private marks = 0;
  /** Units of a grant consumed in Redis by this instance and not yet committed or given back. */
  private readonly unsettled = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Grants made exact by a sweep (a gauge for tests). */
  reconciled = 0;

  constructor(
    private readonly redis: LimiterRedis,
    private readonly store: Pick<UsageRepository, 'getUsage'>,
    /** The limiter's clock argument for its scripts ('' for Redis's TIME). */
    private readonly clock: () => string,
  ) {}

  /** The grant's month counter may differ from the store. */
  mark(grantId: string, keys: MonthKeys): void {
    if (this.closed) return;
    this.dirty.set(grantId, { k: keys, mark: ++this.marks });
    this.timer ??= setTimeout(() => void this.sweep(), SWEEP_MS).unref();
  }

  /** Units counted in Redis whose commit is pending (+) or has ended (-). */
  inFlight(grantId: string, units: number): void {
    const n = (this.unsettled.get(grantId) ?? 0) + units;
    if (n === 0) this.unsettled.delete(grantId);
    else this.unsettled.set(grantId, n);
  }

  get pending(): number {
    return this.dirty.size;
  }

  private async sweep(): Promise<void> {
    const grants = [...this.dirty];
    const snapshots = await Promise.all(
      grants.map(async ([grantId, { k, mark }]) => {
        try {
          const [, period, , month] = await this.redis.mdsPeek(k.minuteKey, k.monthKey, this.clock());
          return { grantId, k, mark, period, before: month, busy: this.unsettled.has(grantId) };
        } catch {
          return null; // Redis still away: the next sweep
        }
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS).unref());
    await Promise.all(
      snapshots.map(async (s) => {
        if (s === null || this.closed) return;
        // Not seeded: the next use seeds it from the store (HSETNX), nothing to fix.
        if (s.before === null) return void this.dirty.delete(s.grantId);
        try {
          const used = await this.store.getUsage(s.grantId, s.period);
          const [now] = await this.redis.mdsReconcile(s.k.monthKey, s.period, s.before, used);
          const quiet = Number(now) === Number(s.before) && !s.busy && !this.unsettled.has(s.grantId);
          if (quiet || Number(now) === -1) {
            // A mark made after the counter was read stays.
            if (this.dirty.get(s.grantId)?.mark === s.mark) this.dirty.delete(s.grantId);
            this.reconciled++;
          }
        } catch {
          // The store or Redis away: the next sweep.
        }
      }),
    );
    this.timer = null;
    if (this.dirty.size > 0 && !this.closed)
      this.timer = setTimeout(() => void this.sweep(), SWEEP_MS).unref();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
