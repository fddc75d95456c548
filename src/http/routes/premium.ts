import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { HistoryWindow } from '../../domain/history.js';
import { nextCursor } from '../../domain/history.js';
import { CARRY_FORWARD_MS, type PremiumSeries, premiumSeries } from '../../runtime/premium-history.js';
import type { Services } from '../../runtime/services.js';
import type { MarketSnapshot } from '../../runtime/snapshot.js';
import { examples } from '../../schemas/examples.js';
import {
  PremiumHistoryItem,
  PremiumHistoryQuery,
  PremiumHistoryResponse,
  PremiumQuery,
  PremiumResponse,
} from '../../schemas/market.js';
import { pageResponses, responses } from '../../schemas/responses.js';
import { prefersCsv } from '../accept.js';
import { csvColumns, toCsv } from '../csv.js';
import { notFound } from '../errors.js';
import { compileQuery } from '../query.js';
import { dedupe, MAX_AGE, type PreparedAnswer, prepare, sendPage, sendPrepared } from '../respond.js';
import { checkCodeCount, csvKey, historyPage, pageKey, windowRefinement } from './rates.js';

type Query = Static<typeof PremiumQuery>;
type HistoryQuery = Static<typeof PremiumHistoryQuery> & { window: HistoryWindow };
const DEFAULT_CURRENCIES = 'EUR,USD,GBP,CAD';

const historyScope = (q: { currency: string }) => `premium/history|${q.currency}`;
const PREMIUM_COLUMNS = csvColumns(PremiumHistoryItem);
/** Series kept per data version: a window's series serves all its pages (each limit, each cursor). */
const MAX_SERIES = 32;

export function premiumRoutes(app: FastifyInstance, services: Services): void {
  const { market, store, cursors } = services;
  const premium = (q: Query): PreparedAnswer => {
    const list = q.currency ?? DEFAULT_CURRENCIES;
    const snapshot = market.snapshot;
    const key = `premium|${list}`;
    let page = snapshot.pages.get(key);
    if (!page) {
      const requested = dedupe(list);
      const items: string[] = [];
      const missing: string[] = [];
      for (const code of requested) {
        const item = snapshot.premium.get(code);
        if (item) items.push(item);
        else missing.push(code);
      }
      page = prepare(
        `[${items.join(',')}]`,
        `"count":${items.length},"quote":"DZD","currencies":${JSON.stringify(requested)},"missingCurrencies":${JSON.stringify(missing)}`,
      );
      snapshot.pages.set(key, page);
    }
    return { body: page, maxAge: MAX_AGE.latest };
  };

  app.get(
    '/market/premium',
    {
      schema: {
        operationId: 'getMarketPremium',
        summary: 'Parallel-market premium',
        description:
          'Latest parallel and official observations side by side, with the premium of the parallel rate: ' +
          'amount = parallel − official (exact), percent = amount / official × 100 rounded half away from zero to ' +
          '4 decimals. A currency without both observations is listed in `meta.missingCurrencies`, never as zero. ' +
          'Requires `market:premium:read`.',
        tags: ['Market'],
        querystring: PremiumQuery,
        response: responses(PremiumResponse, 'Premium items in request order', [400, 401, 403, 429, 503]),
      },
      config: {
        v1: {
          validate: compileQuery<Query>(PremiumQuery, (q, problems) => checkCodeCount(q.currency, problems)),
          entitlement: () => 'market:premium:read',
          prepared: premium,
        },
      },
    },
    async (request, reply) => {
      const { body, maxAge } = premium(request.query as Query);
      return sendPrepared(request, reply, body, maxAge);
    },
  );

  /** The whole window's series, from this data version's cache or computed and kept. */
  const seriesOf = async (snapshot: MarketSnapshot, currency: string, window: HistoryWindow) => {
    const key = `${currency}|${window.from}|${window.to}`;
    let series: PremiumSeries | undefined = snapshot.premiumSeries.get(key);
    if (series) return series;
    const [parallel, official] = await Promise.all([
      store.dailyRates({ currency, source: 'parallel', from: window.from, to: window.to }),
      // An official observation up to 7 days before the window's first parallel one still counts.
      store.dailyRates({ currency, source: 'official', from: window.from - CARRY_FORWARD_MS, to: window.to }),
    ]);
    series = premiumSeries(currency, parallel, official);
    if (snapshot.premiumSeries.size >= MAX_SERIES) snapshot.premiumSeries.clear();
    snapshot.premiumSeries.set(key, series);
    return series;
  };

  /** A page this version of the data has already served, JSON or CSV. */
  const cachedHistory = (q: HistoryQuery, csv: boolean): PreparedAnswer | undefined => {
    const key = pageKey(historyScope(q), q, q.window, q.limit ?? 250);
    const body = market.snapshot.pages.get(csv ? csvKey(key) : key);
    return body && { body, maxAge: MAX_AGE.history };
  };

  app.get(
    '/market/premium/history',
    {
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
        response: pageResponses(
          PremiumHistoryResponse,
          'One page of daily premiums, newest first, with the summary of the whole window',
          [400, 401, 403, 404, 429, 503],
          toCsv(PREMIUM_COLUMNS, examples.premiumHistory.data),
          PREMIUM_COLUMNS.header,
        ),
      },
      config: {
        v1: {
          validate: compileQuery<HistoryQuery>(
            PremiumHistoryQuery,
            windowRefinement<HistoryQuery>(services, historyScope, 1, ['currency']),
          ),
          entitlement: () => 'market:premium:history:read',
          prepared: cachedHistory,
          csv: true,
        },
      },
    },
    async (request, reply) => {
      const q = request.query as HistoryQuery;
      const limit = q.limit ?? 250;
      const snapshot = market.snapshot;
      if (!snapshot.hasSeries(q.currency, 'parallel') || !snapshot.hasSeries(q.currency, 'official')) {
        throw notFound(`No parallel and official rate series to compare for ${q.currency}.`);
      }
      const { window } = q;
      const key = pageKey(historyScope(q), q, window, limit);
      const columns = prefersCsv(request.headers.accept) ? PREMIUM_COLUMNS : null;
      const page = await historyPage(snapshot.pages, key, columns, async () => {
        const series = await seriesOf(snapshot, q.currency, window);
        // Keyset: the items of days before the last one of the previous page.
        const before = window.position?.[0];
        let start = 0;
        if (before !== undefined) while (start < series.days.length && series.days[start]! >= before) start++;
        const end = Math.min(start + limit, series.days.length);
        const cursor =
          end < series.days.length
            ? nextCursor(q, historyScope(q), cursors, window, [series.days[end - 1]!])
            : null;
        return prepare(
          `[${series.items.slice(start, end).join(',')}]`,
          `"count":${end - start},"currency":"${q.currency}","quote":"DZD","from":"${new Date(window.from).toISOString()}","to":"${new Date(window.to).toISOString()}","limit":${limit},"nextCursor":${cursor === null ? 'null' : JSON.stringify(cursor)},"summary":${series.summary}`,
          cursor,
        );
      });
      return sendPage(request, reply, page, MAX_AGE.history);
    },
  );
}
