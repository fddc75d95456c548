/**
 * Series by interval (decisions 128–133): a history window cut into UTC days,
 * weeks starting on Monday, or calendar months. The store groups observations
 * by an integer key per interval (storage/kysely/intervals.ts); these turn a
 * key into the interval's first instant and back.
 */
import { DAY_MS } from './dates.js';

export const INTERVALS = ['day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];

/** The longest window a request with `interval` may ask for (decisions 129). */
export const MAX_INTERVAL_WINDOW_DAYS = 3660;

/** 1970-01-01 was a Thursday: days since the epoch plus 3 count from a Monday. */
const MONDAY_OFFSET = 3;

/** Epoch ms at 00:00Z of the first day of the interval whose key is `key`. */
export function intervalStart(interval: Interval, key: number): number {
  switch (interval) {
    case 'day':
      return key * DAY_MS;
    case 'week':
      return (key * 7 - MONDAY_OFFSET) * DAY_MS;
    case 'month':
      return Date.UTC(Math.floor(key / 12), key % 12, 1);
  }
}

/** The key of the interval holding the instant `ms` (non-negative epoch ms). */
export function intervalKey(interval: Interval, ms: number): number {
  const day = Math.floor(ms / DAY_MS);
  switch (interval) {
    case 'day':
      return day;
    case 'week':
      return Math.floor((day + MONDAY_OFFSET) / 7);
    case 'month': {
      const d = new Date(ms);
      return d.getUTCFullYear() * 12 + d.getUTCMonth();
    }
  }
}

/** Open, high, low and close of one side, in micro-units (decisions 1). */
export interface Ohlc {
  open: number;
  high: number;
  low: number;
  close: number;
}

/** What every interval of a series holds: its key, first and last instants, count, and each side's OHLC. */
export interface IntervalSummary {
  key: number;
  firstUpdatedAt: number;
  lastUpdatedAt: number;
  observations: number;
  buy: Ohlc;
  sell: Ohlc;
}
