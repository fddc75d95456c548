import { type HistoryWindow, nextCursor } from '../../domain/history.js';
import { QUOTE } from '../../domain/types.js';
import { CARRY_FORWARD_MS, type PremiumSeries, premiumSeries } from '../../runtime/premium-history.js';
import type { Services } from '../../runtime/services.js';
import type { MarketSnapshot } from '../../runtime/snapshot.js';
import { examples } from '../../schemas/examples.js';
import { PremiumHistoryItem, PremiumHistoryQuery, PremiumHistoryResponse } from '../../schemas/market.js';
import type { QueryOf } from '../../schemas/query.js';
import { historyParts, type Windowed, windowMeta } from '../pipeline/history.js';
import { operation } from '../pipeline/operation.js';

type Query = QueryOf<typeof PremiumHistoryQuery> & Windowed;

const scopeOf = (q: { currency: string }) => `premium/history|${q.currency}`;
/** Series kept per data version: a window's series serves all its pages (each limit, each cursor). */
const MAX_SERIES = 32;

export function premiumHistory(services: Services) {
  const { market, store, cursors } = services;
  const parts = historyParts<typeof PremiumHistoryResponse, Query>(services, {
    response: PremiumHistoryResponse,
    record: PremiumHistoryItem,
    description: 'One page of daily premiums, newest first, with the summary of the whole window',
    statuses: [400, 401, 403, 404, 429, 503],
    example: examples.premiumHistory.data,
    scope: scopeOf,
    positionLength: 1,
    filters: ['currency'],
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
        'official observation. Requires `market:premium:history:read`.',
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
        // Keyset: the items of days before the last one of the previous page.
        const before = window.position?.[0];
        let start = 0;
        if (before !== undefined) while (start < series.days.length && series.days[start]! >= before) start++;
        const end = Math.min(start + limit, series.days.length);
        const cursor =
          end < series.days.length
            ? nextCursor(q, scopeOf(q), cursors, window, [series.days[end - 1]!])
            : null;
        const meta = { count: end - start, currency: q.currency, quote: QUOTE };
        const page = { ...meta, ...windowMeta(window, limit, cursor), summary: series.summary };
        return parts.prepare(series.items.slice(start, end), page, cursor);
      });
    },
  });
}
