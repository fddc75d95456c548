/**
 * /admin/v1/consensus/explain and /admin/v1/consensus/verify: a published
 * consensus point explained by the quotes it used and excluded, and every
 * point recomputed from the stored quotes (docs/decisions.md 112, 113).
 * Scope `reporters:write`, as for the reporters: who manages them sees their
 * quotes. Thin over src/use-cases/consensus.ts.
 */
import { adminResponses } from '../../schemas/admin.js';
import {
  ExplainQuery,
  ExplanationAnswer,
  VerificationAnswer,
  VerifyQuery,
} from '../../schemas/admin-consensus.js';
import { explainPoint, verifyPoints } from '../../use-cases/consensus.js';
import { type AdminRoute, adminRoute, answer, unwrap } from './route.js';

const scope = 'reporters:write';
const tags = ['Reporters'];

export const consensusRoutes: AdminRoute[] = [
  adminRoute({
    method: 'GET',
    url: '/consensus/explain',
    scope,
    schema: {
      tags,
      operationId: 'explainConsensus',
      summary: 'Explain a published consensus point',
      description:
        'The point of a market (`currency` or `purity`) in force at `at` (the latest at or before it; default ' +
        'the latest), its quality, and every quote it used or excluded: the reporter’s pseudonym, the ' +
        'organisation, the values, the age at the point’s instant, and why an organisation was excluded. ' +
        '404 when the market has no point then.',
      querystring: ExplainQuery,
      response: adminResponses({ status: 200, schema: ExplanationAnswer }, [404]),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(
        request,
        reply,
        unwrap(
          await explainPoint(services.store, actor, request.query as ExplainQuery, { now: services.now() }),
          'query',
        ),
      ),
  }),
  adminRoute({
    method: 'GET',
    url: '/consensus/verify',
    scope,
    schema: {
      tags,
      operationId: 'verifyConsensus',
      summary: 'Recompute the published consensus points',
      description:
        'Every point published at or after `since` (default: every one), recomputed from the stored quotes ' +
        'received by its instant with the reporters as they were then, and the consensus settings of this ' +
        'service; `differences` lists every member that does not match (empty: none).',
      querystring: VerifyQuery,
      response: adminResponses({ status: 200, schema: VerificationAnswer }),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(
        request,
        reply,
        unwrap(
          await verifyPoints(services.store, actor, request.query as VerifyQuery, services.consensusSettings),
          'query',
        ),
      ),
  }),
];
