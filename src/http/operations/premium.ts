import { QUOTE } from '../../domain/types.js';
import type { Services } from '../../runtime/services.js';
import type { PremiumItemValue } from '../../runtime/snapshot.js';
import { PremiumQuery, PremiumResponse } from '../../schemas/market.js';
import type { QueryOf } from '../../schemas/query.js';
import { responses } from '../../schemas/responses.js';
import { pagesOf } from '../pipeline/bodies.js';
import { checkCodeCount } from '../pipeline/history.js';
import { operation } from '../pipeline/operation.js';
import { dedupe, MAX_AGE, type PreparedAnswer } from '../respond.js';
import { preparer } from '../serialize.js';

const body = preparer(PremiumResponse);

export function premium({ market }: Services) {
  const answer = (q: QueryOf<typeof PremiumQuery>): PreparedAnswer => {
    const snapshot = market.snapshot;
    const page = pagesOf(snapshot).remember(`premium|${q.currency}`, () => {
      const requested = dedupe(q.currency);
      const items: PremiumItemValue[] = [];
      const missing: string[] = [];
      for (const code of requested) {
        const item = snapshot.premium.get(code);
        if (item) items.push(item);
        else missing.push(code);
      }
      return body(items, {
        count: items.length,
        quote: QUOTE,
        currencies: requested,
        missingCurrencies: missing,
      });
    });
    return { body: page, maxAge: MAX_AGE.latest };
  };

  return operation({
    url: '/market/premium',
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
    refine: (q, problems) => checkCodeCount(q.currency, problems),
    entitlement: () => 'market:premium:read',
    ready: answer,
    answer,
  });
}
