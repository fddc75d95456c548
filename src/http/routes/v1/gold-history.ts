import { nextCursor } from '../../../domain/history.js';
import { GOLD_UNIT, PURITIES, QUOTE } from '../../../domain/types.js';
import { goldRecord } from '../../../runtime/records.js';
import type { Services } from '../../../runtime/services.js';
import { examples } from '../../../schemas/examples.js';
import { GoldHistoryQuery, GoldHistoryResponse, GoldRecord } from '../../../schemas/market.js';
import type { QueryOf } from '../../../schemas/query.js';
import { pageResponses } from '../../../schemas/responses.js';
import { csvColumns, toCsv } from '../../csv.js';
import { preparer } from '../../serialize.js';
import { pagesOf } from '../../v1/bodies.js';
import {
  cachedPage,
  historyPage,
  pageKey,
  type Windowed,
  windowMeta,
  windowRefinement,
} from '../../v1/history.js';
import { operation } from '../../v1/operation.js';

type Query = QueryOf<typeof GoldHistoryQuery> & Windowed;
const SCOPE = 'gold/history';
const GOLD_COLUMNS = csvColumns(GoldRecord);
const prepare = preparer(GoldHistoryResponse);

export function goldHistory(services: Services) {
  const { market, store, cursors } = services;
  return operation<typeof GoldHistoryQuery, Windowed>({
    url: '/gold/history',
    schema: {
      operationId: 'getGoldHistory',
      summary: 'Gold reference history',
      description:
        'Gold records newest first (ties in purity order), cursor-paginated; the window is at most 366 days. ' +
        'Requires `gold:history:read`.',
      tags: ['Gold'],
      querystring: GoldHistoryQuery,
      response: pageResponses(
        GoldHistoryResponse,
        'One page of gold records',
        [400, 401, 403, 429, 503],
        toCsv(GOLD_COLUMNS, examples.goldHistory.data),
        GOLD_COLUMNS.header,
      ),
    },
    refine: windowRefinement<Query>(services, () => SCOPE, 2),
    entitlement: () => 'gold:history:read',
    csv: true,
    ready: (q, csv) => cachedPage(pagesOf(market.snapshot), pageKey(SCOPE, q), csv),
    answer: (q: Query, { csv }) => {
      const { limit, window } = q;
      return historyPage(pagesOf(market.snapshot), pageKey(SCOPE, q), csv ? GOLD_COLUMNS : null, async () => {
        const position = window.position;
        const rows = await store.goldHistory({
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
        return prepare(rows.map(goldRecord), { ...meta, ...windowMeta(window, limit, cursor) }, cursor);
      });
    },
  });
}
