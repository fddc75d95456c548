import { GOLD_UNIT, QUOTE } from '../../domain/types.js';
import { loadQualities } from '../../runtime/quality.js';
import { latestGold } from '../../runtime/records.js';
import type { Services } from '../../runtime/services.js';
import type { MarketSnapshot } from '../../runtime/snapshot.js';
import { GoldLatestQuery, GoldLatestResponse } from '../../schemas/market.js';
import { responses } from '../../schemas/responses.js';
import { type AsOf, asOfAnswer, checkAt } from '../pipeline/as-of.js';
import { perVersion } from '../pipeline/bodies.js';
import { operation } from '../pipeline/operation.js';
import { MAX_AGE, type PreparedAnswer } from '../respond.js';
import { preparer } from '../serialize.js';

const prepare = preparer(GoldLatestResponse);

/** The body of a version of the data, null when it holds no gold record. */
const latestBody = perVersion(({ gold }: MarketSnapshot) =>
  gold.length === 0 ? null : prepare(gold, { count: gold.length, quote: QUOTE, unit: GOLD_UNIT }),
);

export function goldLatest({ market, store, now }: Services) {
  const ready = (): PreparedAnswer | undefined => {
    const body = latestBody(market.snapshot);
    return body ? { body, maxAge: MAX_AGE.latest } : undefined;
  };

  /** The records as of `at` (decisions 123): one read of the purities and their previous day's, one of their points. */
  const asOf = async (at: number) => {
    const series = await store.market.goldAsOf(at);
    if (series.length === 0)
      return { notFound: `No gold reference is stored at or before ${new Date(at).toISOString()}.` };
    const served = series.map((g) => ({ series: g.current.purity, updatedAt: g.current.updatedAt }));
    return asOfAnswer(market.snapshot, 'gold-latest-at', served, async () => {
      const points = await loadQualities(
        store,
        [],
        series.map((g) => g.current),
      );
      const records = series.map((g) => latestGold(g.current, points, g.previous));
      return prepare(records, { count: records.length, quote: QUOTE, unit: GOLD_UNIT });
    });
  };

  return operation<typeof GoldLatestQuery, AsOf>({
    url: '/gold/latest',
    schema: {
      operationId: 'getLatestGold',
      summary: 'Latest gold references',
      description:
        'The newest per-gram DZD reference of each purity present, in the order 18K, 21K, 24K, with its change ' +
        'since the previous day. `buy` is what a dealer pays per gram, `sell` what a dealer charges. Requires ' +
        '`gold:latest:read`. With `at`, the newest reference at or before that instant and its change, which ' +
        'requires `gold:history:read` instead. Any other parameter is ignored.',
      tags: ['Gold'],
      'x-entitlement-at': 'gold:history:read',
      querystring: GoldLatestQuery,
      response: responses(GoldLatestResponse, 'Latest gold records', [400, 401, 403, 404, 429, 503]),
    },
    refine: (q, problems) => checkAt(q, now(), problems),
    entitlement: (q) => (q.asOf === undefined ? 'gold:latest:read' : 'gold:history:read'),
    // With `at`, the store says first which observations answer (decisions 123).
    ready: (q) => (q.asOf === undefined ? ready() : undefined),
    answer: (q) =>
      q.asOf === undefined ? (ready() ?? { notFound: 'No gold reference is stored.' }) : asOf(q.asOf),
  });
}
