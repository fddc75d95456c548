import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type HistoryWindow, nextCursor, resolveWindow } from '../../domain/history.js';
import { ratesEntitlement } from '../../domain/scopes.js';
import type { Source } from '../../domain/types.js';
import type { PageCache } from '../../runtime/page-cache.js';
import type { Services } from '../../runtime/services.js';
import { historyRateJson } from '../../runtime/snapshot.js';
import { MAX_CODES } from '../../schemas/common.js';
import { examples } from '../../schemas/examples.js';
import {
  HistoryRate,
  RatesHistoryQuery,
  RatesHistoryResponse,
  RatesLatestQuery,
  RatesLatestResponse,
} from '../../schemas/market.js';
import { pageResponses, responses } from '../../schemas/responses.js';
import { prefersCsv } from '../accept.js';
import { type CsvColumns, csvColumns, csvPage, toCsv } from '../csv.js';
import { type ErrorDetail, notFound } from '../errors.js';
import { compileQuery } from '../query.js';
import {
  dedupe,
  MAX_AGE,
  type Prepared,
  type PreparedAnswer,
  prepare,
  sendPage,
  sendPrepared,
} from '../respond.js';

/**
 * RFC 9745 (March 2025): `Deprecation` is a structured-field date, `@` and epoch
 * seconds; here 2026-11-21, the day the alias was deprecated (decisions §7).
 * The draft's `Deprecation: true` is not a valid value any more.
 */
const DEPRECATED_SINCE = `@${Date.UTC(2026, 10, 21) / 1000}`;
const SUCCESSOR_LINK = '</v1/rates/history>; rel="successor-version"';

type LatestQuery = Static<typeof RatesLatestQuery>;
type HistoryQuery = Static<typeof RatesHistoryQuery> & { window: HistoryWindow };

/** Shared by every `currency` list parameter: the 25-code cap counts distinct codes. */
export function checkCodeCount(list: string | undefined, problems: ErrorDetail[]): void {
  if (list !== undefined && dedupe(list).length > MAX_CODES) {
    problems.push({ parameter: 'currency', message: `must list at most ${MAX_CODES} distinct codes` });
  }
}

/**
 * The window and cursor rules. Each runs once the parameters it reads passed
 * their own rules, whatever else failed, so that every problem of a request is
 * reported together (decisions §6). `filters` names the parameters besides
 * `from` and `to` that `scope` binds the cursor to.
 */
export function windowRefinement<
  T extends { from?: string; to?: string; cursor?: string; window?: HistoryWindow },
>(services: Services, scope: (q: T) => string, positionLength: number, filters: readonly string[] = []) {
  return (q: T, problems: ErrorDetail[]) => {
    // A parameter that failed its own rule is missing from `q`, as an absent one is;
    // only the problems tell them apart.
    const failed = (name: string) => problems.some((p) => p.parameter === name);
    const checks = { dates: !failed('from') && !failed('to'), filters: !filters.some(failed) };
    const window = resolveWindow(
      q,
      scope(q),
      services.cursors,
      positionLength,
      services.now(),
      problems,
      checks,
    );
    if (window) q.window = window;
  };
}

/** Everything that decides a history page's bytes, request id aside. */
export function pageKey(
  scope: string,
  q: { from?: string; to?: string },
  window: HistoryWindow,
  limit: number,
): string {
  return `${scope}|${q.from ?? ''}|${q.to ?? ''}|${window.from}|${window.to}|${window.position?.join('.') ?? ''}|${limit}`;
}

/** Where a page's CSV is cached, beside its JSON page. */
export const csvKey = (key: string): string => `${key}|csv`;

/**
 * The page a history request asks for, from this data version's cache or made
 * and kept: the JSON page (`build` makes it), or with `columns` its CSV,
 * made from the JSON page so that both hold the same records (decisions §12).
 */
export async function historyPage(
  pages: PageCache,
  key: string,
  columns: CsvColumns | null,
  build: () => Promise<Prepared>,
): Promise<Prepared> {
  if (columns) {
    const hit = pages.get(csvKey(key));
    if (hit) return hit;
  }
  let json = pages.get(key);
  if (!json) {
    json = await build();
    pages.set(key, json);
  }
  if (!columns) return json;
  const csv = csvPage(json, columns);
  pages.set(csvKey(key), csv);
  return csv;
}

const RATE_COLUMNS = csvColumns(HistoryRate);

const historyScope = (q: { currency: string; source?: Source }) =>
  `rates/history|${q.currency}|${q.source ?? 'parallel'}`;

export function ratesRoutes(app: FastifyInstance, services: Services): void {
  const { market, store, cursors } = services;

  const latest = (q: LatestQuery): PreparedAnswer => {
    const source = q.source ?? 'parallel';
    const snapshot = market.snapshot;
    const view = snapshot.bySource[source];
    if (q.currency === undefined) return { body: view.all, maxAge: MAX_AGE.latest };
    // Clients ask for the same few lists again and again: prepare each once per data version.
    const key = `latest|${source}|${q.currency}`;
    let page = snapshot.pages.get(key);
    if (!page) {
      const requested = dedupe(q.currency);
      const found = requested.filter((c) => view.records.has(c)).sort();
      page = prepare(
        `[${found.map((c) => view.records.get(c)).join(',')}]`,
        `"count":${found.length},"source":"${source}","quote":"DZD","currencies":${JSON.stringify(requested)}`,
      );
      snapshot.pages.set(key, page);
    }
    return { body: page, maxAge: MAX_AGE.latest };
  };

  app.get(
    '/rates/latest',
    {
      schema: {
        operationId: 'getLatestRates',
        summary: 'Latest rates',
        description:
          'The newest stored observation per asset for one source. Requires `rates:<source>:latest:read`. ' +
          'An unknown but well-formed code yields no record and no error.',
        tags: ['Rates'],
        querystring: RatesLatestQuery,
        response: responses(
          RatesLatestResponse,
          'Latest observations, in code order',
          [400, 401, 403, 429, 503],
        ),
      },
      config: {
        v1: {
          validate: compileQuery<LatestQuery>(RatesLatestQuery, (q, problems) =>
            checkCodeCount(q.currency, problems),
          ),
          entitlement: (q: LatestQuery) => ratesEntitlement(q.source ?? 'parallel', 'latest'),
          prepared: latest,
        },
      },
    },
    async (request, reply) => {
      const { body, maxAge } = latest(request.query as LatestQuery);
      return sendPrepared(request, reply, body, maxAge);
    },
  );

  const validateHistory = compileQuery<HistoryQuery>(
    RatesHistoryQuery,
    windowRefinement<HistoryQuery>(services, historyScope, 1, ['currency', 'source']),
  );

  /** A page this version of the data has already served, JSON or CSV. */
  const cachedHistory = (q: HistoryQuery, csv: boolean): PreparedAnswer | undefined => {
    const key = pageKey(historyScope(q), q, q.window, q.limit ?? 250);
    const body = market.snapshot.pages.get(csv ? csvKey(key) : key);
    return body && { body, maxAge: MAX_AGE.history };
  };

  const history = async (request: FastifyRequest, reply: FastifyReply) => {
    const q = request.query as HistoryQuery;
    const source = q.source ?? 'parallel';
    const limit = q.limit ?? 250;
    const snapshot = market.snapshot;
    if (!snapshot.hasSeries(q.currency, source)) {
      throw notFound(`No ${source} rate series for ${q.currency}.`);
    }
    const { window } = q;
    const key = pageKey(historyScope(q), q, window, limit);
    const columns = prefersCsv(request.headers.accept) ? RATE_COLUMNS : null;
    const page = await historyPage(snapshot.pages, key, columns, async () => {
      const rows = await store.rateHistory({
        currency: q.currency,
        source,
        from: window.from,
        to: window.to,
        before: window.position?.[0],
        limit: limit + 1,
      });
      const more = rows.length > limit;
      if (more) rows.length = limit;
      const cursor = more ? nextCursor(q, historyScope(q), cursors, window, [rows.at(-1)!.updatedAt]) : null;
      return prepare(
        `[${rows.map(historyRateJson).join(',')}]`,
        `"count":${rows.length},"currency":"${q.currency}","source":"${source}","quote":"DZD","from":"${new Date(window.from).toISOString()}","to":"${new Date(window.to).toISOString()}","limit":${limit},"nextCursor":${cursor === null ? 'null' : JSON.stringify(cursor)}`,
        cursor,
      );
    });
    return sendPage(request, reply, page, MAX_AGE.history);
  };

  const historySchema = {
    tags: ['Rates'],
    // Machine-readable for /llms.txt and agents: the alias's description does not repeat the entitlement.
    'x-entitlement': 'rates:<source>:history:read',
    querystring: RatesHistoryQuery,
    response: pageResponses(
      RatesHistoryResponse,
      'One page of observations, newest first',
      [400, 401, 403, 404, 429, 503],
      toCsv(RATE_COLUMNS, examples.ratesHistory.data),
      RATE_COLUMNS.header,
    ),
  };
  const historyConfig = {
    v1: {
      csv: true,
      validate: validateHistory,
      entitlement: (q: HistoryQuery) => ratesEntitlement(q.source ?? 'parallel', 'history'),
    },
  };

  app.get(
    '/rates/history',
    {
      schema: {
        ...historySchema,
        operationId: 'getRatesHistory',
        summary: 'Rate history',
        description:
          'Observations of one asset and source, newest first, cursor-paginated. Requires `rates:<source>:history:read`. ' +
          'The window is at most 366 days. 404 when the asset is unknown or has never had an observation for the source.',
      },
      config: { v1: { ...historyConfig.v1, prepared: cachedHistory } },
    },
    history,
  );

  app.get(
    '/rates/historical',
    {
      schema: {
        ...historySchema,
        operationId: 'getRatesHistoricalDeprecated',
        summary: 'Rate history (deprecated alias)',
        description:
          'Deprecated alias of `/v1/rates/history`: same parameters, behaviour and response, plus `Deprecation: @1795219200` ' +
          '(RFC 9745: deprecated since 2026-11-21) ' +
          'and `Link: </v1/rates/history>; rel="successor-version"`.',
        deprecated: true,
      },
      config: historyConfig,
      onSend: async (_request, reply) => {
        reply.header('deprecation', DEPRECATED_SINCE);
        // A page with a next one already links to it (decisions §12): both links go out.
        const next = reply.getHeader('link');
        reply.header('link', next ? `${next}, ${SUCCESSOR_LINK}` : SUCCESSOR_LINK);
      },
    },
    history,
  );
}
