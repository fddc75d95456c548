import { ratesEntitlement } from '../../../domain/scopes.js';
import type { Services } from '../../../runtime/services.js';
import { RatesLatestQuery, RatesLatestResponse } from '../../../schemas/market.js';
import type { QueryOf } from '../../../schemas/query.js';
import { responses } from '../../../schemas/responses.js';
import { dedupe, MAX_AGE, type PreparedAnswer, prepare } from '../../respond.js';
import { checkCodeCount } from '../../v1/history.js';
import { operation } from '../../v1/operation.js';

export function ratesLatest({ market }: Services) {
  const latest = (q: QueryOf<typeof RatesLatestQuery>): PreparedAnswer => {
    const snapshot = market.snapshot;
    const view = snapshot.bySource[q.source];
    const { currency } = q;
    if (currency === undefined) return { body: view.all, maxAge: MAX_AGE.latest };
    // Clients ask for the same few lists again and again: prepare each once per data version.
    const page = snapshot.pages.remember(`latest|${q.source}|${currency}`, () => {
      const requested = dedupe(currency);
      const found = requested.filter((c) => view.records.has(c)).sort();
      return prepare(
        `[${found.map((c) => view.records.get(c)).join(',')}]`,
        `"count":${found.length},"source":"${q.source}","quote":"DZD","currencies":${JSON.stringify(requested)}`,
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
