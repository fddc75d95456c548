import { type HistoryWindow, nextCursor } from '../../domain/history.js';
import { QUOTE } from '../../domain/types.js';
import { premiumIntervals } from '../../runtime/intervals.js';
import { CARRY_FORWARD_MS, type PremiumSeries, premiumSeries } from '../../runtime/premium-history.js';
import type { Services } from '../../runtime/services.js';
import type { MarketSnapshot } from '../../runtime/snapshot.js';
import { examples } from '../../schemas/examples.js';
import { PremiumInterval } from '../../schemas/intervals.js';
import {
  PremiumHistoryItem,
  PremiumHistoryPage,
  PremiumHistoryQuery,
  PremiumHistoryResponse,
  PremiumIntervalsPage,
} from '../../schemas/market.js';
import type { QueryOf } from '../../schemas/query.js';
import { historyParts, type Windowed, windowMeta, withInterval } from '../pipeline/history.js';
import { operation } from '../pipeline/operation.js';

type Query = QueryOf<typeof PremiumHistoryQuery> & Windowed;

const scopeOf = (q: { currency: string; interval?: Query['interval'] }) =>
  withInterval(`premium/history|${q.currency}`, q.interval);
/** Series kept per data version: a window's series serves all its pages (each limit, each cursor). */
const MAX_SERIES = 32;

export function premiumHistory(services: Services) {
  const { market, store, cursors } = services;
  const parts = historyParts<typeof PremiumHistoryPage, typeof PremiumIntervalsPage, Query>(services, {
    response: PremiumHistoryPage,
    record: PremiumHistoryItem,
    intervals: { response: PremiumIntervalsPage, record: PremiumInterval },
    documented: PremiumHistoryResponse,
    description:
      'One page of daily premiums (with `interval`, of intervals), newest first, with the summary of the whole window',
    statuses: [400, 401, 403, 404, 429, 503],
    example: examples.premiumHistory.data,
    scope: scopeOf,
    positionLength: 1,
    filters: ['currency', 'interval'],
  });

  /** The whole window's series, from this data version's cache or computed and kept. */
  const seriesOf = async (snapshot: MarketSnapshot, currency: string, window: HistoryWindow) => {
    const key = `${currency}|${window.from}|${window.to}`;
    let series: PremiumSeries | undefined = snapshot.premiumSeries.get(key);
    if (series) return series;
    const [parallel, official] = await Promise.all([
      store.market.dailyRates({ currency, source: 'parallel', from: window.from, to: window.to }),
      // An official observation up to 7 days before the window's first parallel one still counts.
      store.market.dailyRates({
        currency,
        source: 'official',
        from: window.from - CARRY_FORWARD_MS,
        to: window.to,
      }),
    ]);
    series = premiumSeries(currency, parallel, official);
    if (snapshot.premiumSeries.size >= MAX_SERIES) snapshot.premiumSeries.clear();
    snapshot.premiumSeries.set(key, series);
    return series;
  };

  return operation<typeof PremiumHistoryQuery, Windowed>({
    url: '/market/premium/history',
    schema: {
      operationId: 'getPremiumHistory',
      summary: 'Premium history',
      description:
        'The premium of the parallel rate over the official one, one item per UTC day of the window on which a ' +
        'parallel observation exists, newest first, cursor-paginated. `parallel` is the latest parallel ' +
        'observation of the day; `official` the latest official observation at or before the end of the day, ' +
        'carried forward at most 7 days before the parallel one (a day with an older one is skipped); each side ' +
        'keeps its own `updatedAt`. Arithmetic as `/v1/market/premium`. `meta.summary` covers the whole window ' +
        '(every page): days, min and max percent with their day (a tie goes to the newest day), mean. ' +
        'The window is at most 366 days. 404 when the asset is unknown or has never had a parallel or never an ' +
        'official observation. Requires `market:premium:history:read`. With `interval` (`day`, `week` from ' +
        'Monday, `month`; UTC), each item is one interval holding a daily premium of the window ' +
        '(`PremiumInterval`): open, high, low and close of the daily percents of buy and sell, its first and last ' +
        'day and its count of days, newest first; `meta.summary` is unchanged; the window may then span up to ' +
        '3,660 days.',
      tags: ['Market'],
      querystring: PremiumHistoryQuery,
      response: parts.response,
    },
    refine: parts.refine,
    entitlement: () => 'market:premium:history:read',
    csv: parts.csv,
    ready: parts.ready,
    answer: async (q: Query, { csv }) => {
      const { limit, window } = q;
      const snapshot = market.snapshot;
      if (!snapshot.hasSeries(q.currency, 'parallel') || !snapshot.hasSeries(q.currency, 'official')) {
        return { notFound: `No parallel and official rate series to compare for ${q.currency}.` };
      }
      return parts.page(snapshot, q, csv, async () => {
        const series = await seriesOf(snapshot, q.currency, window);
        const grouped = q.interval === undefined ? null : premiumIntervals(q.currency, q.interval, series);
        // Keyset: the items of days (or intervals) before the last one of the previous page.
        const keys = grouped ? grouped.starts : series.days;
        const before = window.position?.[0];
        let start = 0;
        if (before !== undefined) while (start < keys.length && keys[start]! >= before) start++;
        const end = Math.min(start + limit, keys.length);
        const cursor =
          end < keys.length ? nextCursor(q, scopeOf(q), cursors, window, [keys[end - 1]!]) : null;
        const meta = { count: end - start, currency: q.currency, quote: QUOTE };
        const page = { ...meta, ...windowMeta(window, limit, cursor), summary: series.summary };
        if (grouped) return parts.prepareIntervals(grouped.items.slice(start, end), page, cursor);
        return parts.prepare(series.items.slice(start, end), page, cursor);
      });
    },
  });
}
