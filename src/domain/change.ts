/**
 * The change of a latest record since the previous day (decisions 122) and the
 * premium's, in percentage points (decisions 124). Which observation it is
 * compared with is the store's read (MarketRepository.ratesAsOf); the
 * arithmetic is here: exact differences of micro-units, the percent rounded as
 * the premium's (decimal.ts, percentChange).
 */
import { microsToNumber, percentChange } from './decimal.js';

interface Sides {
  buy: number;
  sell: number;
}

const side = (current: number, previous: number) => ({
  amount: microsToNumber(current - previous),
  percent: percentChange(current, previous),
});

/** `current` against `previous` (micro-DZD), null without a previous observation. */
export function changeOf(current: Sides, previous: (Sides & { updatedAt: number }) | null) {
  if (previous === null) return null;
  return {
    since: new Date(previous.updatedAt).toISOString(),
    buy: side(current.buy, previous.buy),
    sell: side(current.sell, previous.sell),
  };
}

/** a − b of two percents of 4 decimals, in percentage points, summed as integer ten-thousandths. */
function points(a: number, b: number): number {
  const result = (Math.round(a * 10_000) - Math.round(b * 10_000)) / 10_000;
  return result === 0 ? 0 : result;
}

type Percents = { buy: { percent: number }; sell: { percent: number } };

/** A premium against the previous day's, null without one. */
export function premiumChangeOf(current: Percents, previous: Percents | null, since: number) {
  if (previous === null) return null;
  return {
    since: new Date(since).toISOString(),
    buy: { percentPoints: points(current.buy.percent, previous.buy.percent) },
    sell: { percentPoints: points(current.sell.percent, previous.sell.percent) },
  };
}
