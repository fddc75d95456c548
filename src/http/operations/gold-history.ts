import { nextCursor } from '../../domain/history.js';
import { GOLD_UNIT, PURITIES, QUOTE } from '../../domain/types.js';
import { goldInterval } from '../../runtime/intervals.js';
import { loadQualities } from '../../runtime/quality.js';
import { goldRecord } from '../../runtime/records.js';
import type { Services } from '../../runtime/services.js';
import { examples } from '../../schemas/examples.js';
import { GoldInterval } from '../../schemas/intervals.js';
import {
  GoldHistoryPage,
  GoldHistoryQuery,
  GoldHistoryResponse,
  GoldIntervalsPage,
  GoldRecord,
} from '../../schemas/market.js';
import type { QueryOf } from '../../schemas/query.js';
import { historyParts, type Windowed, windowMeta, withInterval } from '../pipeline/history.js';
import { operation } from '../pipeline/operation.js';

type Query = QueryOf<typeof GoldHistoryQuery> & Windowed;
const SCOPE = 'gold/history';
const scopeOf = (q: { interval?: Query['interval'] }) => withInterval(SCOPE, q.interval);

export function goldHistory(services: Services) {
  const { market, store, cursors } = services;
  const parts = historyParts<typeof GoldHistoryPage, typeof GoldIntervalsPage, Query>(services, {
    response: GoldHistoryPage,
    record: GoldRecord,
    intervals: { response: GoldIntervalsPage, record: GoldInterval },
    documented: GoldHistoryResponse,
    description: 'One page of gold records (with `interval`, of intervals)',
    statuses: [400, 401, 403, 429, 503],
    example: examples.goldHistory.data,
    scope: scopeOf,
    positionLength: 2,
    filters: ['interval'],
  });
  return operation<typeof GoldHistoryQuery, Windowed>({
    url: '/gold/history',
    schema: {
      operationId: 'getGoldHistory',
      summary: 'Gold reference history',
      description:
        'Gold records newest first (ties in purity order), cursor-paginated; the window is at most 366 days. ' +
        'Requires `gold:history:read`. With `interval` (`day`, `week` from Monday, `month`; UTC), each item is one ' +
        'interval of a purity holding a record of the window (`GoldInterval`): open, high, low and close of buy and ' +
        'sell, its first and last `updatedAt` and its count, newest first (ties in purity order); the window may ' +
        'then span up to 3,660 days.',
      tags: ['Gold'],
      querystring: GoldHistoryQuery,
      response: parts.response,
    },
    refine: parts.refine,
    entitlement: () => 'gold:history:read',
    csv: parts.csv,
    ready: parts.ready,
    answer: (q: Query, { csv }) => {
      const { limit, window } = q;
      return parts.page(market.snapshot, q, csv, async () => {
        const position = window.position;
        const interval = q.interval;
        if (interval !== undefined) {
          const found = await store.market.goldIntervals({
            interval,
            from: window.from,
            to: window.to,
            after: position ? { start: position[0]!, purity: PURITIES[position[1]!] ?? '24K' } : undefined,
            limit: limit + 1,
          });
          const more = found.length > limit;
          if (more) found.length = limit;
          const items = found.map((s) => goldInterval(s.purity, interval, s));
          const last = items.at(-1);
          const cursor =
            more && last
              ? nextCursor(q, scopeOf(q), cursors, window, [
                  Date.parse(last.start),
                  PURITIES.indexOf(last.purity),
                ])
              : null;
          const meta = { count: items.length, quote: QUOTE, unit: GOLD_UNIT };
          return parts.prepareIntervals(items, { ...meta, ...windowMeta(window, limit, cursor) }, cursor);
        }
        const rows = await store.market.goldHistory({
          from: window.from,
          to: window.to,
          after: position ? { updatedAt: position[0]!, purity: PURITIES[position[1]!] ?? '24K' } : undefined,
          limit: limit + 1,
        });
        const more = rows.length > limit;
        if (more) rows.length = limit;
        const last = rows.at(-1);
        const cursor =
          more && last
            ? nextCursor(q, SCOPE, cursors, window, [last.updatedAt, PURITIES.indexOf(last.purity)])
            : null;
        const meta = { count: rows.length, quote: QUOTE, unit: GOLD_UNIT };
        const points = await loadQualities(store, [], rows);
        return parts.prepare(
          rows.map((g) => goldRecord(g, points)),
          { ...meta, ...windowMeta(window, limit, cursor) },
          cursor,
        );
      });
    },
  });
}
