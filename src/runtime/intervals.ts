/**
 * The interval records the API serves (decisions 128–133), as values: a
 * summary read by the store (storage/kysely/intervals.ts) becomes the object
 * its schema declares (schemas/intervals.ts); the premium's intervals are
 * made from its daily series (premium-history.ts).
 */
import type { Static } from '@sinclair/typebox';
import { microsToNumber } from '../domain/decimal.js';
import {
  type Interval,
  type IntervalSummary,
  intervalKey,
  intervalStart,
  type Ohlc,
} from '../domain/intervals.js';
import { GOLD_UNIT, type Purity, QUOTE, type Source } from '../domain/types.js';
import type { GoldInterval, PremiumInterval, RateInterval } from '../schemas/intervals.js';
import type { PremiumSeries } from './premium-history.js';

const iso = (ms: number) => new Date(ms).toISOString();
const isoDay = (ms: number) => iso(ms).slice(0, 10);
const amounts = (o: Ohlc) => ({
  open: microsToNumber(o.open),
  high: microsToNumber(o.high),
  low: microsToNumber(o.low),
  close: microsToNumber(o.close),
});

function span(interval: Interval, s: IntervalSummary) {
  return {
    interval,
    start: isoDay(intervalStart(interval, s.key)),
    buy: amounts(s.buy),
    sell: amounts(s.sell),
    firstUpdatedAt: iso(s.firstUpdatedAt),
    lastUpdatedAt: iso(s.lastUpdatedAt),
    observations: s.observations,
  };
}

export function rateInterval(
  currency: string,
  source: Source,
  interval: Interval,
  s: IntervalSummary,
): Static<typeof RateInterval> {
  return { currency, quote: QUOTE, source, ...span(interval, s) };
}

export function goldInterval(
  purity: Purity,
  interval: Interval,
  s: IntervalSummary,
): Static<typeof GoldInterval> {
  return { purity, quote: QUOTE, unit: GOLD_UNIT, ...span(interval, s) };
}

export interface PremiumIntervals {
  /** Each interval's first instant, newest first: the keyset of the pages. */
  starts: number[];
  items: Static<typeof PremiumInterval>[];
}

/**
 * The premium's intervals: open, high, low and close of the daily percents of
 * the window's series (newest first), grouped by interval (decisions 132);
 * its first and last `updatedAt` are its first and last day's parallel one.
 */
export function premiumIntervals(
  currency: string,
  interval: Interval,
  series: PremiumSeries,
): PremiumIntervals {
  const starts: number[] = [];
  const items: Static<typeof PremiumInterval>[] = [];
  let key = Number.NaN;
  for (let i = 0; i < series.days.length; i++) {
    const day = series.days[i]!;
    const { premium, parallel } = series.items[i]!;
    const { buy, sell } = premium;
    const k = intervalKey(interval, day);
    const last = items.at(-1);
    if (last === undefined || k !== key) {
      key = k;
      const start = intervalStart(interval, k);
      starts.push(start);
      // Days go back in time: the first met is the interval's close, the last its open.
      items.push({
        currency,
        quote: QUOTE,
        interval,
        start: isoDay(start),
        buy: { open: buy.percent, high: buy.percent, low: buy.percent, close: buy.percent },
        sell: { open: sell.percent, high: sell.percent, low: sell.percent, close: sell.percent },
        firstDate: isoDay(day),
        lastDate: isoDay(day),
        days: 1,
        firstUpdatedAt: parallel.updatedAt,
        lastUpdatedAt: parallel.updatedAt,
        observations: 1,
      });
      continue;
    }
    widen(last.buy, buy.percent);
    widen(last.sell, sell.percent);
    last.firstDate = isoDay(day);
    last.days++;
    last.firstUpdatedAt = parallel.updatedAt;
    last.observations++;
  }
  return { starts, items };
}

/** An older day's percent: the new open, and maybe a new high or low. */
function widen(o: { open: number; high: number; low: number }, percent: number) {
  o.open = percent;
  if (percent > o.high) o.high = percent;
  if (percent < o.low) o.low = percent;
}
