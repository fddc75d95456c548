import { nextCursor } from '../../domain/history.js';
import { ratesEntitlement } from '../../domain/scopes.js';
import { QUOTE } from '../../domain/types.js';
import { rateInterval } from '../../runtime/intervals.js';
import { loadQualities } from '../../runtime/quality.js';
import { historyRate } from '../../runtime/records.js';
import type { Services } from '../../runtime/services.js';
import { examples } from '../../schemas/examples.js';
import { RateInterval } from '../../schemas/intervals.js';
import {
  HistoryRate,
  RatesHistoryPage,
  RatesHistoryQuery,
  RatesHistoryResponse,
  RatesIntervalsPage,
} from '../../schemas/market.js';
import type { QueryOf } from '../../schemas/query.js';
import { historyParts, type Windowed, windowMeta, withInterval } from '../pipeline/history.js';
import { deprecatedAlias, operation } from '../pipeline/operation.js';

type Query = QueryOf<typeof RatesHistoryQuery> & Windowed;

const scopeOf = (q: { currency: string; source?: string; interval?: Query['interval'] }) =>
  withInterval(`rates/history|${q.currency}|${q.source}`, q.interval);

/** `/v1/rates/history`, and `/v1/rates/historical`, its deprecated alias (decisions §7). */
export function ratesHistory(services: Services) {
  const { market, store, cursors } = services;
  const parts = historyParts<typeof RatesHistoryPage, typeof RatesIntervalsPage, Query>(services, {
    response: RatesHistoryPage,
    record: HistoryRate,
    intervals: { response: RatesIntervalsPage, record: RateInterval },
    documented: RatesHistoryResponse,
    description: 'One page of observations (with `interval`, of intervals), newest first',
    statuses: [400, 401, 403, 404, 429, 503],
    example: examples.ratesHistory.data,
    scope: scopeOf,
    positionLength: 1,
    filters: ['currency', 'source', 'interval'],
  });
  const history = operation<typeof RatesHistoryQuery, Windowed>({
    url: '/rates/history',
    schema: {
      operationId: 'getRatesHistory',
      summary: 'Rate history',
      description:
        'Observations of one asset and source, newest first, cursor-paginated. Requires `rates:<source>:history:read`. ' +
        'The window is at most 366 days. 404 when the asset is unknown or has never had an observation for the source. ' +
        'With `interval` (`day`, `week` from Monday, `month`; UTC), each item is one interval holding an observation ' +
        'of the window (`RateInterval`): open, high, low and close of buy and sell, its first and last `updatedAt` ' +
        'and its count, newest first; the window may then span up to 3,660 days.',
      tags: ['Rates'],
      // Machine-readable for /llms.txt and agents: the alias's description does not repeat the entitlement.
      'x-entitlement': 'rates:<source>:history:read',
      querystring: RatesHistoryQuery,
      response: parts.response,
    },
    refine: parts.refine,
    entitlement: (q) => ratesEntitlement(q.source, 'history'),
    csv: parts.csv,
    ready: parts.ready,
    answer: async (q: Query, { csv }) => {
      const { source, limit, window } = q;
      const snapshot = market.snapshot;
      if (!snapshot.hasSeries(q.currency, source))
        return { notFound: `No ${source} rate series for ${q.currency}.` };
      return parts.page(snapshot, q, csv, async () => {
        const interval = q.interval;
        if (interval !== undefined) {
          const found = await store.market.rateIntervals({
            currency: q.currency,
            source,
            interval,
            from: window.from,
            to: window.to,
            before: window.position?.[0],
            limit: limit + 1,
          });
          const more = found.length > limit;
          if (more) found.length = limit;
          const items = found.map((s) => rateInterval(q.currency, source, interval, s));
          const last = items.at(-1);
          const cursor =
            more && last ? nextCursor(q, scopeOf(q), cursors, window, [Date.parse(last.start)]) : null;
          const meta = { count: items.length, currency: q.currency, source, quote: QUOTE };
          return parts.prepareIntervals(items, { ...meta, ...windowMeta(window, limit, cursor) }, cursor);
        }
        const rows = await store.market.rateHistory({
          currency: q.currency,
          source,
          from: window.from,
          to: window.to,
          before: window.position?.[0],
          limit: limit + 1,
        });
        const more = rows.length > limit;
        if (more) rows.length = limit;
        const cursor = more ? nextCursor(q, scopeOf(q), cursors, window, [rows.at(-1)!.updatedAt]) : null;
        const meta = { count: rows.length, currency: q.currency, source, quote: QUOTE };
        const points = await loadQualities(store, rows, []);
        return parts.prepare(
          rows.map((r) => historyRate(r, points)),
          { ...meta, ...windowMeta(window, limit, cursor) },
          cursor,
        );
      });
    },
  });

  const alias = deprecatedAlias(history, {
    url: '/rates/historical',
    operationId: 'getRatesHistoricalDeprecated',
    summary: 'Rate history (deprecated alias)',
    description:
      'Deprecated alias of `/v1/rates/history`: same parameters, behaviour and response, plus `Deprecation: @1795219200` ' +
      '(RFC 9745: deprecated since 2026-11-21), `Sunset: Wed, 30 Jun 2027 00:00:00 GMT` (RFC 8594: it may stop ' +
      'answering after that date) and `Link: </v1/rates/history>; rel="successor-version"`.',
    // RFC 9745 (March 2025): `Deprecation` is a structured-field date, `@` and epoch
    // seconds; here 2026-11-21, the day the alias was deprecated (decisions §7).
    // The draft's `Deprecation: true` is not a valid value any more.
    since: Date.UTC(2026, 10, 21),
    // RFC 8594: the alias may be removed after 2027-06-30 (docs/decisions.md 63).
    sunset: Date.UTC(2027, 5, 30),
  });
  return [history, alias];
}
