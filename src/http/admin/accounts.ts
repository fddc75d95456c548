/**
 * /admin/v1/accounts: customers, each with the billing system's id
 * (`externalId`, unique). Thin over src/use-cases/accounts.ts.
 */

import {
  AccountAnswer,
  AccountCreate,
  AccountList,
  AccountListQuery,
  AccountPatch,
  adminResponses,
  IdParams,
} from '../../schemas/admin.js';
import { createAccount, getAccount, listAccounts, updateAccount } from '../../use-cases/accounts.js';
import { type AdminRoute, adminRoute, answer, pageAnswer, unwrap } from './route.js';

type Id = { id: string };
const tags = ['Accounts'];

export const accountRoutes: AdminRoute[] = [
  adminRoute({
    method: 'POST',
    url: '/accounts',
    scope: 'accounts:write',
    schema: {
      tags,
      operationId: 'createAccount',
      summary: 'Create an account',
      description:
        'A new account. `externalId`, the billing system’s customer id, is unique: a second account with it is a 409.',
      body: AccountCreate,
      response: adminResponses({ status: 201, schema: AccountAnswer(true, 'The account') }, [409]),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(
        request,
        reply,
        unwrap(await createAccount(services.store, actor, request.body as AccountCreate)),
        201,
      ),
  }),
  adminRoute({
    method: 'GET',
    url: '/accounts',
    scope: 'accounts:read',
    schema: {
      tags,
      operationId: 'listAccounts',
      summary: 'List accounts',
      description: 'Accounts, oldest first, a page at a time; filter by `externalId` or `email`.',
      querystring: AccountListQuery,
      response: adminResponses({ status: 200, schema: AccountList }),
    },
    handler: async (request, _reply, { services, actor }) =>
      pageAnswer(request, await listAccounts(services.store, actor, request.query as AccountListQuery)),
  }),
  adminRoute({
    method: 'GET',
    url: '/accounts/{id}',
    scope: 'accounts:read',
    schema: {
      tags,
      operationId: 'getAccount',
      summary: 'Get an account',
      description: 'One account by its id.',
      params: IdParams,
      response: adminResponses({ status: 200, schema: AccountAnswer(false, 'The account') }, [404]),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(request, reply, unwrap(await getAccount(services.store, actor, request.params as Id))),
  }),
  adminRoute({
    method: 'PATCH',
    url: '/accounts/{id}',
    scope: 'accounts:write',
    schema: {
      tags,
      operationId: 'updateAccount',
      summary: 'Change an account',
      description: 'Changes the fields given; null clears one. A taken `externalId` is a 409.',
      params: IdParams,
      body: AccountPatch,
      response: adminResponses(
        { status: 200, schema: AccountAnswer(true, 'The account as changed') },
        [404, 409],
      ),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(
        request,
        reply,
        unwrap(
          await updateAccount(services.store, actor, {
            ...(request.body as AccountPatch),
            id: (request.params as Id).id,
          }),
        ),
      ),
  }),
];
