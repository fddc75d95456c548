import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { HistoryWindow } from '../../domain/history.js';
import { nextCursor } from '../../domain/history.js';
import { PURITIES } from '../../domain/types.js';
import type { Services } from '../../runtime/services.js';
import { goldJson } from '../../runtime/snapshot.js';
import { examples } from '../../schemas/examples.js';
import {
  GoldHistoryQuery,
  GoldHistoryResponse,
  GoldLatestResponse,
  GoldRecord,
} from '../../schemas/market.js';
import { pageResponses, responses } from '../../schemas/responses.js';
import { prefersCsv } from '../accept.js';
import { csvColumns, toCsv } from '../csv.js';
import { notFound } from '../errors.js';
import { compileQuery } from '../query.js';
import { MAX_AGE, type PreparedAnswer, prepare, sendPage, sendPrepared } from '../respond.js';
import { csvKey, historyPage, pageKey, windowRefinement } from './rates.js';

type HistoryQuery = Static<typeof GoldHistoryQuery> & { window: HistoryWindow };
const SCOPE = 'gold/history';
const GOLD_COLUMNS = csvColumns(GoldRecord);

/** Routes that take no parameters ignore a query string (decisions §6). */
export const ignoreQuery = () => ({ value: {} });

export function goldRoutes(app: FastifyInstance, services: Services): void {
  const { market, store, cursors } = services;
  const goldLatest = (): PreparedAnswer | undefined => {
    const body = market.snapshot.goldLatest;
    return body ? { body, maxAge: MAX_AGE.latest } : undefined;
  };
  const cachedHistory = (q: HistoryQuery, csv: boolean): PreparedAnswer | undefined => {
    const key = pageKey(SCOPE, q, q.window, q.limit ?? 250);
    const body = market.snapshot.pages.get(csv ? csvKey(key) : key);
    return body && { body, maxAge: MAX_AGE.history };
  };

  app.get(
    '/gold/latest',
    {
      schema: {
        operationId: 'getLatestGold',
        summary: 'Latest gold references',
        description:
          'The newest per-gram DZD reference of each purity present, in the order 18K, 21K, 24K. `buy` is what a ' +
          'dealer pays per gram, `sell` what a dealer charges. Requires `gold:latest:read`.',
        tags: ['Gold'],
        response: responses(GoldLatestResponse, 'Latest gold records', [401, 403, 404, 429, 503]),
      },
      config: { v1: { validate: ignoreQuery, entitlement: () => 'gold:latest:read', prepared: goldLatest } },
    },
    async (request, reply) => {
      const answer = goldLatest();
      if (!answer) throw notFound('No gold reference is stored.');
      return sendPrepared(request, reply, answer.body, answer.maxAge);
    },
  );

  app.get(
    '/gold/history',
    {
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
      config: {
        v1: {
          validate: compileQuery<HistoryQuery>(
            GoldHistoryQuery,
            windowRefinement<HistoryQuery>(services, () => SCOPE, 2),
          ),
          entitlement: () => 'gold:history:read',
          prepared: cachedHistory,
          csv: true,
        },
      },
    },
    async (request, reply) => {
      const q = request.query as HistoryQuery;
      const limit = q.limit ?? 250;
      const { window } = q;
      const key = pageKey(SCOPE, q, window, limit);
      const columns = prefersCsv(request.headers.accept) ? GOLD_COLUMNS : null;
      const page = await historyPage(market.snapshot.pages, key, columns, async () => {
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
        return prepare(
          `[${rows.map(goldJson).join(',')}]`,
          `"count":${rows.length},"quote":"DZD","unit":"gram","from":"${new Date(window.from).toISOString()}","to":"${new Date(window.to).toISOString()}","limit":${limit},"nextCursor":${cursor === null ? 'null' : JSON.stringify(cursor)}`,
          cursor,
        );
      });
      return sendPage(request, reply, page, MAX_AGE.history);
    },
  );
}
