import { GOLD_UNIT, QUOTE } from '../../domain/types.js';
import type { Services } from '../../runtime/services.js';
import type { MarketSnapshot } from '../../runtime/snapshot.js';
import { GoldLatestResponse } from '../../schemas/market.js';
import { NoQuery } from '../../schemas/query.js';
import { responses } from '../../schemas/responses.js';
import { perVersion } from '../pipeline/bodies.js';
import { operation } from '../pipeline/operation.js';
import { MAX_AGE, type PreparedAnswer } from '../respond.js';
import { preparer } from '../serialize.js';

const prepare = preparer(GoldLatestResponse);

/** The body of a version of the data, null when it holds no gold record. */
const latestGold = perVersion(({ gold }: MarketSnapshot) =>
  gold.length === 0 ? null : prepare(gold, { count: gold.length, quote: QUOTE, unit: GOLD_UNIT }),
);

export function goldLatest({ market }: Services) {
  const ready = (): PreparedAnswer | undefined => {
    const body = latestGold(market.snapshot);
    return body ? { body, maxAge: MAX_AGE.latest } : undefined;
  };
  return operation({
    url: '/gold/latest',
    schema: {
      operationId: 'getLatestGold',
      summary: 'Latest gold references',
      description:
        'The newest per-gram DZD reference of each purity present, in the order 18K, 21K, 24K. `buy` is what a ' +
        'dealer pays per gram, `sell` what a dealer charges. Requires `gold:latest:read`.',
      tags: ['Gold'],
      querystring: NoQuery,
      response: responses(GoldLatestResponse, 'Latest gold records', [401, 403, 404, 429, 503]),
    },
    entitlement: () => 'gold:latest:read',
    ready,
    answer: () => ready() ?? { notFound: 'No gold reference is stored.' },
  });
}
