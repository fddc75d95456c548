/**
 * The usage recorder's tallies (units by grant, month, day and key) and the
 * batch a tick's requests share: usage-recorder.ts, apart for size.
 */
import type { UsageIncrement } from '../storage/store.js';
import type { DailyIncrement } from '../storage/usage-records.js';

/**
 * Told when the batch holding its unit is committed or has failed, without a
 * promise per unit (the memory limiter's requests: docs/decisions.md 80).
 * Neither method may throw.
 */
export interface UnitWaiter {
  committed(): void;
  failed(err: unknown): void;
}

/**
 * The batch being filled: its units' waiters, and one promise shared by the
 * callers that wait with a promise (made only when one asks). Settled once;
 * a second settle is a no-op, as with a promise.
 */
export class Batch {
  private readonly waiters: UnitWaiter[] = [];
  private promise: Promise<void> | null = null;
  private resolvePromise: (() => void) | null = null;
  private rejectPromise: ((err: unknown) => void) | null = null;
  private settled = false;
  private failure: { err: unknown } | null = null;

  /** The batch's promise: resolves when it is committed, rejects when it failed. */
  get done(): Promise<void> {
    if (this.promise === null) {
      if (this.settled) {
        this.promise = this.failure === null ? Promise.resolve() : Promise.reject(this.failure.err);
      } else {
        this.promise = new Promise<void>((res, rej) => {
          this.resolvePromise = res;
          this.rejectPromise = rej;
        });
      }
      // A failed batch is reported to every caller through `done`; this keeps the
      // promise itself from counting as an unhandled rejection.
      this.promise.catch(() => {});
    }
    return this.promise;
  }

  wait(waiter: UnitWaiter): void {
    this.waiters.push(waiter);
  }

  resolve(): void {
    if (this.settled) return;
    this.settled = true;
    this.resolvePromise?.();
    tellEach(this.waiters, (w) => w.committed());
  }

  reject(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.failure = { err };
    this.rejectPromise?.(err);
    tellEach(this.waiters, (w) => w.failed(err));
  }
}

/**
 * Tells every waiter, even after one threw, so no other request is left
 * unanswered and the recorder's own bookkeeping goes on. A waiter that throws
 * is a bug: its error is thrown on its own, as an uncaught exception, as an
 * error in a promise's reaction would have been.
 */
function tellEach(waiters: UnitWaiter[], tell: (w: UnitWaiter) => void): void {
  for (const w of waiters) {
    try {
      tell(w);
    } catch (err) {
      queueMicrotask(() => {
        throw err;
      });
    }
  }
}

export const newBatch = (): Batch => new Batch();

/** A grant's month in a tally: its total, and the same units by day, then key. */
export interface MonthTally {
  month: UsageIncrement;
  days: Map<string, Map<string, DailyIncrement>>;
}
/** By grant, then period: long-lived strings as keys, so no key is built per unit. */
export type Tally = Map<string, Map<string, MonthTally>>;

/** Where `add` put its units: the month's and the day's counts. */
export interface Added {
  period: string;
  month: UsageIncrement;
  daily: DailyIncrement;
}

export function add(
  tally: Tally,
  grantId: string,
  period: string,
  day: string,
  keyId: string,
  count: number,
): Added {
  let periods = tally.get(grantId);
  if (!periods) {
    periods = new Map();
    tally.set(grantId, periods);
  }
  let m = periods.get(period);
  if (!m) {
    m = { month: { grantId, period, count: 0 }, days: new Map() };
    periods.set(period, m);
  }
  m.month.count += count;
  let keys = m.days.get(day);
  if (!keys) {
    keys = new Map();
    m.days.set(day, keys);
  }
  let d = keys.get(keyId);
  if (d) d.count += count;
  else {
    d = { grantId, keyId, day, count };
    keys.set(keyId, d);
  }
  return { period, month: m.month, daily: d };
}

/** Adds every unit of `from` to `into`, times `sign`. */
export function addAll(into: Tally, from: Tally, sign: 1 | -1 = 1): void {
  for (const periods of from.values())
    for (const m of periods.values())
      for (const keys of m.days.values())
        for (const d of keys.values()) add(into, d.grantId, m.month.period, d.day, d.keyId, sign * d.count);
}

export const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
