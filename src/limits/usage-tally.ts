/**
 * The usage recorder's tallies (units by grant, month, day and key) and the
 * promise a batch's requests share: usage-recorder.ts, apart for size.
 */
import type { UsageIncrement } from '../storage/store.js';
import type { DailyIncrement } from '../storage/usage-records.js';

/** The batch being filled: one promise shared by every unit in it. */
export interface Batch {
  done: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const done = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A failed batch is reported to every caller through `done`; this keeps the
  // promise itself from counting as an unhandled rejection.
  done.catch(() => {});
  return { done, resolve, reject };
}

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
