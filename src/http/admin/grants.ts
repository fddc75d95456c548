/**
 * /admin/v1/grants: what an account bought, from the plan catalogue or with
 * explicit limits; `provider` and its `externalId` (unique per provider) tie
 * it to the billing system. Status changes follow decisions §3: an illegal
 * one is a 409. Thin over src/use-cases/grants.ts.
 */

import {
  adminResponses,
  GrantAnswer,
  GrantCreate,
  GrantIdParams,
  GrantList,
  GrantListQuery,
  GrantPatch,
} from '../../schemas/admin.js';
import { createGrant, getGrant, listGrants, updateGrant } from '../../use-cases/grants.js';
import { type AdminRoute, adminRoute, answer, pageAnswer, unwrap } from './route.js';

type Id = { id: string };
const tags = ['Grants'];

export const grantRoutes: AdminRoute[] = [
  adminRoute({
    method: 'POST',
    url: '/grants',
    scope: 'accounts:write',
    schema: {
      tags,
      operationId: 'createGrant',
      summary: 'Create a grant',
      description:
        'A grant of an account: a plan of the catalogue (its limits and scopes apply unless given) or any plan ' +
        'name with `scopes` and both limits. `externalId` is unique per `provider`: a second grant with both is a 409.',
      body: GrantCreate,
      response: adminResponses({ status: 201, schema: GrantAnswer(true, 'The grant') }, [409]),
    },
    handler: async (request, reply, { services, actor, plansFile }) =>
      answer(
        request,
        reply,
        unwrap(await createGrant(services.store, actor, request.body as GrantCreate, { plansFile })),
        201,
      ),
  }),
  adminRoute({
    method: 'GET',
    url: '/grants',
    scope: 'accounts:read',
    schema: {
      tags,
      operationId: 'listGrants',
      summary: 'List grants',
      description:
        'Grants, oldest first, a page at a time; filter by `accountId`, `provider`, `externalId`, `status`.',
      querystring: GrantListQuery,
      response: adminResponses({ status: 200, schema: GrantList }),
    },
    handler: async (request, _reply, { services, actor }) =>
      pageAnswer(request, await listGrants(services.store, actor, request.query as GrantListQuery)),
  }),
  adminRoute({
    method: 'GET',
    url: '/grants/{id}',
    scope: 'accounts:read',
    schema: {
      tags,
      operationId: 'getGrant',
      summary: 'Get a grant',
      description: 'One grant by its id.',
      params: GrantIdParams,
      response: adminResponses({ status: 200, schema: GrantAnswer(false, 'The grant') }, [404]),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(request, reply, unwrap(await getGrant(services.store, actor, request.params as Id))),
  }),
  adminRoute({
    method: 'PATCH',
    url: '/grants/{id}',
    scope: 'accounts:write',
    schema: {
      tags,
      operationId: 'updateGrant',
      summary: 'Change a grant',
      description:
        'Changes the fields given. Status: active ⇄ suspended, either → cancelled, which is final (reopening a ' +
        'cancelled grant is a 409). Every running instance applies a change within 2 seconds.',
      params: GrantIdParams,
      body: GrantPatch,
      response: adminResponses(
        { status: 200, schema: GrantAnswer(true, 'The grant as changed') },
        [404, 409],
      ),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(
        request,
        reply,
        unwrap(
          await updateGrant(services.store, actor, {
            ...(request.body as GrantPatch),
            id: (request.params as Id).id,
          }),
        ),
      ),
  }),
];
