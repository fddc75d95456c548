import { ratesEntitlement } from '../../domain/scopes.js';
import { QUOTE } from '../../domain/types.js';
import type { Services } from '../../runtime/services.js';
import type { SourceView } from '../../runtime/snapshot.js';
import { RatesLatestQuery, RatesLatestResponse } from '../../schemas/market.js';
import type { QueryOf } from '../../schemas/query.js';
import { responses } from '../../schemas/responses.js';
import { pagesOf, perVersion } from '../pipeline/bodies.js';
import { checkCodeCount } from '../pipeline/history.js';
import { operation } from '../pipeline/operation.js';
import { dedupe, MAX_AGE, type PreparedAnswer } from '../respond.js';
import { preparer } from '../serialize.js';

const body = preparer(RatesLatestResponse);

/** A source's whole list, kept for the version of the data: the hot path serializes nothing. */
const wholeList = perVersion((view: SourceView) =>
  body(view.records, { count: view.codes.length, source: view.source, quote: QUOTE, currencies: view.codes }),
);

export function ratesLatest({ market }: Services) {
  const latest = (q: QueryOf<typeof RatesLatestQuery>): PreparedAnswer => {
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

  return operation({
    url: '/rates/latest',
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
    refine: (q, problems) => checkCodeCount(q.currency, problems),
    entitlement: (q) => ratesEntitlement(q.source, 'latest'),
    ready: latest,
    answer: latest,
  });
}
