import { ASSET_TYPES } from '../../domain/types.js';
import type { Services } from '../../runtime/services.js';
import type { MarketSnapshot } from '../../runtime/snapshot.js';
import { AssetsQuery, AssetsResponse } from '../../schemas/market.js';
import type { QueryOf } from '../../schemas/query.js';
import { responses } from '../../schemas/responses.js';
import { perVersion } from '../pipeline/bodies.js';
import { operation } from '../pipeline/operation.js';
import { MAX_AGE, type Prepared, type PreparedAnswer } from '../respond.js';
import { preparer } from '../serialize.js';

const prepare = preparer(AssetsResponse);

/** The directory of a version of the data, per `type` filter ('' = all). */
const directories = perVersion(({ assets }: MarketSnapshot) => {
  const bodies = new Map<string, Prepared>([['', prepare(assets, { count: assets.length, type: null })]]);
  for (const type of ASSET_TYPES) {
    const list = assets.filter((a) => a.type === type);
    bodies.set(type, prepare(list, { count: list.length, type }));
  }
  return bodies;
});

export function assets({ market }: Services) {
  const directory = ({ type }: QueryOf<typeof AssetsQuery>): PreparedAnswer => ({
    body: directories(market.snapshot).get(type ?? '')!,
    maxAge: MAX_AGE.directory,
  });
  return operation({
    url: '/assets',
    schema: {
      operationId: 'listAssets',
      summary: 'Asset directory',
      description: 'Every asset with its localized names, in stable code order. Requires `assets:read`.',
      tags: ['Assets'],
      querystring: AssetsQuery,
      response: responses(AssetsResponse, 'The asset directory', [400, 401, 403, 429, 503]),
    },
    entitlement: () => 'assets:read',
    ready: directory,
    answer: directory,
  });
}
