/**
 * /admin/v1/organisations and /admin/v1/reporters: the street-rate reporters
 * and the organisations they quote for (docs/decisions.md 108). A reporter's
 * token is in the answer that makes it (a create, a roll) and nowhere else.
 * One scope, `reporters:write`, reads included, as for webhooks: who manages
 * reporters sees them. Thin over src/use-cases/reporters.ts.
 */
import { adminResponses, IdParams } from '../../schemas/admin.js';
import {
  CreatedReporterAnswer,
  OrganisationAnswer,
  OrganisationCreate,
  OrganisationList,
  OrganisationListQuery,
  ReporterAnswer,
  ReporterCreate,
  ReporterList,
  ReporterListQuery,
  ReporterPatch,
  ReporterRoll,
  ReporterStatisticsAnswer,
  RolledReporterAnswer,
} from '../../schemas/admin-reporters.js';
import { reporterStatistics } from '../../use-cases/reporter-watch.js';
import {
  createOrganisation,
  createReporter,
  getReporter,
  listOrganisations,
  listReporters,
  removeReporter,
  rollReporterToken,
  updateReporter,
} from '../../use-cases/reporters.js';
import { type AdminRoute, adminRoute, answer, pageAnswer, unwrap } from './route.js';

type Id = { id: string };
const scope = 'reporters:write';
const tags = ['Reporters'];

export const reporterRoutes: AdminRoute[] = [
  adminRoute({
    method: 'POST',
    url: '/organisations',
    scope,
    schema: {
      tags,
      operationId: 'createOrganisation',
      summary: 'Create an organisation',
      description:
        'A shop, desk or network whose reporters count once in the consensus. Names are unique: a second is a 409.',
      body: OrganisationCreate,
      response: adminResponses({ status: 201, schema: OrganisationAnswer(true, 'The organisation') }, [409]),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(
        request,
        reply,
        unwrap(await createOrganisation(services.store, actor, request.body as OrganisationCreate)),
        201,
      ),
  }),
  adminRoute({
    method: 'GET',
    url: '/organisations',
    scope,
    schema: {
      tags,
      operationId: 'listOrganisations',
      summary: 'List organisations',
      description: 'Organisations, oldest first, a page at a time.',
      querystring: OrganisationListQuery,
      response: adminResponses({ status: 200, schema: OrganisationList }),
    },
    handler: async (request, _reply, { services, actor }) =>
      pageAnswer(
        request,
        await listOrganisations(services.store, actor, request.query as OrganisationListQuery),
      ),
  }),
  adminRoute({
    method: 'POST',
    url: '/reporters',
    scope,
    schema: {
      tags,
      operationId: 'createReporter',
      summary: 'Create a reporter',
      description:
        'A reporter of an organisation, allowed the markets listed, active at once. The answer holds its token ' +
        '(`token`): give it to the reporter now, it is never shown again (replays of this request under its ' +
        'Idempotency-Key excepted).',
      body: ReporterCreate,
      response: adminResponses({ status: 201, schema: CreatedReporterAnswer }),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(
        request,
        reply,
        unwrap(await createReporter(services.store, actor, request.body as ReporterCreate)),
        201,
      ),
  }),
  adminRoute({
    method: 'GET',
    url: '/reporters',
    scope,
    schema: {
      tags,
      operationId: 'listReporters',
      summary: 'List reporters',
      description:
        'Reporters, oldest first, a page at a time; filter by `organisationId`. `flagged` marks a reporter whose ' +
        'own quotes failed the exclusion test in more than 30 % of its last 20.',
      querystring: ReporterListQuery,
      response: adminResponses({ status: 200, schema: ReporterList }),
    },
    handler: async (request, _reply, { services, actor }) =>
      pageAnswer(request, await listReporters(services.store, actor, request.query as ReporterListQuery)),
  }),
  adminRoute({
    method: 'GET',
    url: '/reporters/{id}',
    scope,
    schema: {
      tags,
      operationId: 'getReporter',
      summary: 'Get a reporter',
      description: 'One reporter by its pseudonym.',
      params: IdParams,
      response: adminResponses({ status: 200, schema: ReporterAnswer(false, 'The reporter') }, [404]),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(request, reply, unwrap(await getReporter(services.store, actor, request.params as Id))),
  }),
  adminRoute({
    method: 'GET',
    url: '/reporters/{id}/stats',
    scope,
    schema: {
      tags,
      operationId: 'getReporterStatistics',
      summary: 'A reporter’s statistics',
      description:
        'Over the last 30 days: quotes sent, the share of them that failed the exclusion test on their own ' +
        '(the reporter’s own mid, buy and sell against the consensus in force at the quote’s instant, not its ' +
        'organisation’s), the median deviation from the consensus, and whether it is flagged (decisions 116, 117).',
      params: IdParams,
      response: adminResponses({ status: 200, schema: ReporterStatisticsAnswer }, [404]),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(
        request,
        reply,
        unwrap(
          await reporterStatistics(services.store, actor, request.params as Id, { now: services.now() }),
        ),
      ),
  }),
  adminRoute({
    method: 'PATCH',
    url: '/reporters/{id}',
    scope,
    schema: {
      tags,
      operationId: 'updateReporter',
      summary: 'Change a reporter',
      description:
        'Changes the fields given. `status: suspended` stops its quotes counting from the next computation; ' +
        '`active` lets them count again. A removed reporter cannot be changed (409).',
      params: IdParams,
      body: ReporterPatch,
      response: adminResponses(
        { status: 200, schema: ReporterAnswer(true, 'The reporter as changed') },
        [404, 409],
      ),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(
        request,
        reply,
        unwrap(
          await updateReporter(services.store, actor, {
            ...(request.body as ReporterPatch),
            id: (request.params as Id).id,
          }),
        ),
      ),
  }),
  adminRoute({
    method: 'POST',
    url: '/reporters/{id}/remove',
    scope,
    schema: {
      tags,
      operationId: 'removeReporter',
      summary: 'Remove a reporter',
      description:
        'Final: its tokens stop working at once and its quotes stop counting; its past quotes stay stored, so ' +
        'every published point stays explainable. Removing a removed reporter changes nothing.',
      params: IdParams,
      response: adminResponses({ status: 200, schema: ReporterAnswer(true, 'The reporter, removed') }, [404]),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(request, reply, unwrap(await removeReporter(services.store, actor, request.params as Id))),
  }),
  adminRoute({
    method: 'POST',
    url: '/reporters/{id}/roll',
    scope,
    schema: {
      tags,
      operationId: 'rollReporterToken',
      summary: 'Roll a reporter’s token',
      description:
        'A new token for the reporter, shown this once; its previous tokens keep working for the grace period ' +
        '(default a day), so a phone in the field can switch.',
      params: IdParams,
      body: ReporterRoll,
      response: adminResponses({ status: 200, schema: RolledReporterAnswer }, [404, 409]),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(
        request,
        reply,
        unwrap(
          await rollReporterToken(services.store, actor, {
            ...((request.body as ReporterRoll | undefined) ?? {}),
            id: (request.params as Id).id,
          }),
        ),
      ),
  }),
];
