/**
 * The premium as a series (decisions §12): one item per UTC day of the window
 * on which a parallel observation exists, against the latest official one at
 * or before the end of that day, carried forward at most 7 days (the official
 * rate is not published on weekends and holidays); a day whose official side
 * is older is skipped. The arithmetic is that of /v1/market/premium (§8).
 *
 * The whole window is computed at once, because `meta.summary` covers every
 * page of it; pages are slices of it (routes/premium.ts).
 */
import type { Static } from '@sinclair/typebox';
import { DAY_MS } from '../domain/dates.js';
import { meanPercent } from '../domain/decimal.js';
import { premiumItem } from '../domain/premium.js';
import type { RateObservation } from '../domain/types.js';
import type { PremiumHistoryItem, PremiumSummary } from '../schemas/market.js';

/** How much older than the parallel observation its official side may be. */
export const CARRY_FORWARD_MS = 7 * DAY_MS;

export interface PremiumSeries {
  /** Each item's day (epoch ms at 00:00Z), newest first: the keyset of the pages. */
  days: number[];
  /** Each item, in the same order. */
  items: Static<typeof PremiumHistoryItem>[];
  /** `meta.summary`: over the whole window, `null` when it has no item. */
  summary: Static<typeof PremiumSummary>;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * `parallel`: the latest parallel observation of each day of the window;
 * `official`: the latest official one of each day from 7 days before the
 * window's start to its end (Store.dailyRates); both newest first.
 */
export function premiumSeries(
  currency: string,
  parallel: readonly RateObservation[],
  official: readonly RateObservation[],
): PremiumSeries {
  const days: number[] = [];
  const items: Static<typeof PremiumHistoryItem>[] = [];
  const buy: number[] = [];
  const sell: number[] = [];
  let j = 0;
  for (const p of parallel) {
    const day = p.updatedAt - (p.updatedAt % DAY_MS);
    // Both lists go back in time: the official side of an older day is never newer.
    while (j < official.length && official[j]!.updatedAt >= day + DAY_MS) j++;
    const o = official[j];
    if (o === undefined || p.updatedAt - o.updatedAt > CARRY_FORWARD_MS) continue;
    const item = premiumItem(currency, p, o);
    days.push(day);
    items.push({ date: isoDay(day), ...item });
    buy.push(item.premium.buy.percent);
    sell.push(item.premium.sell.percent);
  }
  const summary =
    days.length === 0
      ? null
      : { days: days.length, buy: sideSummary(buy, days), sell: sideSummary(sell, days) };
  return { days, items, summary };
}

/** Min and max with their day (a tie goes to the newest day: the first met), and the mean. */
function sideSummary(percents: readonly number[], days: readonly number[]) {
  let min = 0;
  let max = 0;
  for (let i = 1; i < percents.length; i++) {
    if (percents[i]! < percents[min]!) min = i;
    if (percents[i]! > percents[max]!) max = i;
  }
  return {
    min: { percent: percents[min]!, date: isoDay(days[min]!) },
    max: { percent: percents[max]!, date: isoDay(days[max]!) },
    mean: meanPercent(percents),
  };
}
