import type { Services } from '../../../runtime/services.js';
import { AssetsQuery, AssetsResponse } from '../../../schemas/market.js';
import type { QueryOf } from '../../../schemas/query.js';
import { responses } from '../../../schemas/responses.js';
import { MAX_AGE, type PreparedAnswer } from '../../respond.js';
import { operation } from '../../v1/operation.js';

export function assets({ market }: Services) {
  const directory = ({ type }: QueryOf<typeof AssetsQuery>): PreparedAnswer => ({
    body: market.snapshot.assets.get(type ?? '')!,
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
