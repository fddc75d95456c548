import { ratesEntitlement } from '../../domain/scopes.js';
import { QUOTE } from '../../domain/types.js';
import { loadQualities } from '../../runtime/quality.js';
import { latestRate } from '../../runtime/records.js';
import type { Services } from '../../runtime/services.js';
import type { SourceView } from '../../runtime/snapshot.js';
import { RatesLatestQuery, RatesLatestResponse } from '../../schemas/market.js';
import type { QueryOf } from '../../schemas/query.js';
import { responses } from '../../schemas/responses.js';
import { type AsOf, asOfAnswer, checkAt } from '../pipeline/as-of.js';
import { pagesOf, perVersion } from '../pipeline/bodies.js';
import { checkCodeCount } from '../pipeline/history.js';
import { operation } from '../pipeline/operation.js';
import { dedupe, MAX_AGE, type PreparedAnswer } from '../respond.js';
import { preparer } from '../serialize.js';

type Query = QueryOf<typeof RatesLatestQuery> & AsOf;

const body = preparer(RatesLatestResponse);

/** A source's whole list, kept for the version of the data: the hot path serializes nothing. */
const wholeList = perVersion((view: SourceView) =>
  body(view.records, { count: view.codes.length, source: view.source, quote: QUOTE, currencies: view.codes }),
);

export function ratesLatest({ market, store, now }: Services) {
  const latest = (q: Query): PreparedAnswer => {
    const snapshot = market.snapshot;
    const view = snapshot.bySource[q.source];
    const { currency } = q;
    if (currency === undefined) return { body: wholeList(view), maxAge: MAX_AGE.latest };
    // Clients ask for the same few lists again and again: prepare each once per data version.
    const page = pagesOf(snapshot).remember(`latest|${q.source}|${currency}`, () => {
      const requested = dedupe(currency);
      const found = requested.filter((c) => view.byCode.has(c)).sort();
      return body(
        found.map((c) => view.byCode.get(c)!),
        { count: found.length, source: q.source, quote: QUOTE, currencies: requested },
      );
    });
    return { body: page, maxAge: MAX_AGE.latest };
  };

  /** The list as of `at` (decisions 123): one read of the series and their previous day's, one of their points. */
  const asOf = async (q: Query, at: number): Promise<PreparedAnswer> => {
    const snapshot = market.snapshot;
    const requested = q.currency === undefined ? null : dedupe(q.currency);
    const series = (await store.market.ratesAsOf({ source: q.source, at })).filter(
      (s) =>
        snapshot.assetsByCode.has(s.current.currency) &&
        (requested === null || requested.includes(s.current.currency)),
    );
    const currents = series.map((s) => s.current);
    const served = currents.map((r) => ({ series: r.currency, updatedAt: r.updatedAt }));
    const scope = `latest-at|${q.source}|${requested?.join(',') ?? '*'}`;
    return asOfAnswer(snapshot, scope, served, async () => {
      const points = await loadQualities(store, currents, []);
      const records = series.map((s) =>
        latestRate(s.current, snapshot.assetsByCode.get(s.current.currency)!, points, s.previous),
      );
      const codes = currents.map((r) => r.currency);
      return body(records, {
        count: records.length,
        source: q.source,
        quote: QUOTE,
        currencies: requested ?? codes,
      });
    });
  };

  return operation<typeof RatesLatestQuery, AsOf>({
    url: '/rates/latest',
    schema: {
      operationId: 'getLatestRates',
      summary: 'Latest rates',
      description:
        'The newest stored observation per asset for one source, with its change since the previous day. Requires ' +
        '`rates:<source>:latest:read`. An unknown but well-formed code yields no record and no error. With `at`, ' +
        'the newest observation at or before that instant and its change, which requires ' +
        '`rates:<source>:history:read` instead.',
      tags: ['Rates'],
      'x-entitlement-at': 'rates:<source>:history:read',
      querystring: RatesLatestQuery,
      response: responses(
        RatesLatestResponse,
        'Latest observations, in code order',
        [400, 401, 403, 429, 503],
      ),
    },
    refine: (q, problems) => {
      checkCodeCount(q.currency, problems);
      checkAt(q, now(), problems);
    },
    entitlement: (q) => ratesEntitlement(q.source, q.asOf === undefined ? 'latest' : 'history'),
    // With `at`, the store says first which observations answer (decisions 123).
    ready: (q) => (q.asOf === undefined ? latest(q) : undefined),
    answer: (q) => (q.asOf === undefined ? latest(q) : asOf(q, q.asOf)),
  });
}
