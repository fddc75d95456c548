/**
 * POST /admin/v1/data/retractions: takes a published observation back
 * (docs/decisions.md, 105 and 106), as `mds observations retract`. Thin over
 * src/use-cases/retractions.ts.
 */
import { adminResponses } from '../../schemas/admin.js';
import { RetractionAnswer, RetractionCreate } from '../../schemas/admin-retractions.js';
import { retractObservation } from '../../use-cases/retractions.js';
import { type AdminRoute, adminRoute, answer, unwrap } from './route.js';

export const retractionRoutes: AdminRoute[] = [
  adminRoute({
    method: 'POST',
    url: '/data/retractions',
    scope: 'data:write',
    schema: {
      tags: ['Data'],
      operationId: 'retractObservation',
      summary: 'Retract an observation',
      description:
        'Takes back a published rate (`currency` and `source`) or gold price (`purity`) at its exact ' +
        '`updatedAt`: it leaves the latest rates, the history, the premium and their CSV on every running ' +
        'instance within 2 seconds. What it published and the `reason` are kept as a retraction and in the ' +
        'audit log, and a `data.retracted` event is sent. A later import of the same record leaves it out ' +
        'unless it says `reinstate=true`. An observation that does not exist is a 404 naming it; one already ' +
        'retracted a 409. `dryRun: true` changes nothing and answers what the series’ latest would become.',
      body: RetractionCreate,
      response: adminResponses({ status: 200, schema: RetractionAnswer }, [404, 409]),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(
        request,
        reply,
        unwrap(await retractObservation(services.store, actor, request.body as RetractionCreate)),
      ),
  }),
];
