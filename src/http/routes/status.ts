/**
 * `GET /status` (docs/decisions.md 53): how old the newest data of each family
 * is, against MDS_STALE_AFTER. Outside /v1: no key, no quota; it reads the
 * instance's snapshot, never the store.
 *
 * 200 whether the data is fresh or stale: the answer is information, and
 * alerts are on its `status` or on the `mds_data_age_seconds` gauges.
 * `/readyz` does not look at freshness: old data on every instance would take
 * them all out of the load balancer, turning stale data into no data.
 */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../runtime/services.js';
import { StatusResponses } from '../../schemas/health.js';
import { envelopeOf } from '../respond.js';

export function statusRoutes(app: FastifyInstance, services: Services): void {
  app.get(
    '/status',
    {
      schema: {
        tags: ['Health'],
        // No key: the document's default security (a key) does not apply here.
        security: [],
        operationId: 'getStatus',
        summary: 'Data freshness',
        description:
          'How old the newest observation of each family (parallel, official and transfer rates, gold) is, and ' +
          'whether it is past its threshold (`MDS_STALE_AFTER`). A family the operator does not publish ' +
          '(`MDS_PUBLISHED_FAMILIES`) is listed with `published: false` and is never stale. Answers 200 whether the data is fresh or stale; ' +
          '`/readyz` does not depend on it. Consumes nothing.',
        response: StatusResponses,
      },
    },
    async (request, reply) => {
      const report = services.freshness.report();
      const families = Object.fromEntries(
        Object.entries(report.families).map(([family, f]) => [
          family,
          {
            updatedAt: f.updatedAt === null ? null : new Date(f.updatedAt).toISOString(),
            ageSeconds: f.ageSeconds,
            thresholdSeconds: f.thresholdSeconds,
            published: f.published,
            stale: f.stale,
          },
        ]),
      );
      reply.header('cache-control', 'no-store');
      return envelopeOf(request, reply, { status: report.stale ? 'stale' : 'ok', families });
    },
  );
}
