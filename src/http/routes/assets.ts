import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../runtime/services.js';
import { AssetsQuery, AssetsResponse } from '../../schemas/market.js';
import { responses } from '../../schemas/responses.js';
import { compileQuery } from '../query.js';
import { MAX_AGE, type PreparedAnswer, sendPrepared } from '../respond.js';

type Query = Static<typeof AssetsQuery>;

export function assetsRoutes(app: FastifyInstance, { market }: Services): void {
  const directory = ({ type }: Query): PreparedAnswer => ({
    body: market.snapshot.assets.get(type ?? '')!,
    maxAge: MAX_AGE.directory,
  });
  app.get(
    '/assets',
    {
      schema: {
        operationId: 'listAssets',
        summary: 'Asset directory',
        description: 'Every asset with its localized names, in stable code order. Requires `assets:read`.',
        tags: ['Assets'],
        querystring: AssetsQuery,
        response: responses(AssetsResponse, 'The asset directory', [400, 401, 403, 429, 503]),
      },
      config: {
        v1: { validate: compileQuery(AssetsQuery), entitlement: () => 'assets:read', prepared: directory },
      },
    },
    async (request, reply) => {
      const { body, maxAge } = directory(request.query as Query);
      return sendPrepared(request, reply, body, maxAge);
    },
  );
}
