import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../runtime/services.js';
import { PremiumQuery, PremiumResponse } from '../../schemas/market.js';
import { responses } from '../../schemas/responses.js';
import { compileQuery } from '../query.js';
import { dedupe, MAX_AGE, type PreparedAnswer, prepare, sendPrepared } from '../respond.js';
import { checkCodeCount } from './rates.js';

type Query = Static<typeof PremiumQuery>;
const DEFAULT_CURRENCIES = 'EUR,USD,GBP,CAD';

export function premiumRoutes(app: FastifyInstance, { market }: Services): void {
  const premium = (q: Query): PreparedAnswer => {
    const list = q.currency ?? DEFAULT_CURRENCIES;
    const snapshot = market.snapshot;
    const key = `premium|${list}`;
    let page = snapshot.pages.get(key);
    if (!page) {
      const requested = dedupe(list);
      const items: string[] = [];
      const missing: string[] = [];
      for (const code of requested) {
        const item = snapshot.premium.get(code);
        if (item) items.push(item);
        else missing.push(code);
      }
      page = prepare(
        `[${items.join(',')}]`,
        `"count":${items.length},"quote":"DZD","currencies":${JSON.stringify(requested)},"missingCurrencies":${JSON.stringify(missing)}`,
      );
      snapshot.pages.set(key, page);
    }
    return { body: page, maxAge: MAX_AGE.latest };
  };

  app.get(
    '/market/premium',
    {
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
      config: {
        v1: {
          validate: compileQuery<Query>(PremiumQuery, (q, problems) => checkCodeCount(q.currency, problems)),
          entitlement: () => 'market:premium:read',
          prepared: premium,
        },
      },
    },
    async (request, reply) => {
      const { body, maxAge } = premium(request.query as Query);
      return sendPrepared(request, reply, body, maxAge);
    },
  );
}
