/**
 * /admin/v1/keys: API keys of a grant. The full key is in the answer that
 * creates it (a create, a roll) and nowhere else; a roll lets the old key
 * work through a grace period. Thin over src/use-cases/keys.ts.
 */

import {
  adminResponses,
  CreatedKeyAnswer,
  DEFAULT_GRACE_PERIOD_SECONDS,
  KeyAnswer,
  KeyCreate,
  KeyIdParams,
  KeyList,
  KeyListQuery,
  KeyRoll,
  RolledKeyAnswer,
} from '../../schemas/admin.js';
import { createKey, getKey, listKeys, revokeKey, rollKey } from '../../use-cases/keys.js';
import { type AdminRoute, adminRoute, answer, pageAnswer, unwrap } from './route.js';

type PublicId = { publicId: string };
const tags = ['Keys'];

export const keyRoutes: AdminRoute[] = [
  adminRoute({
    method: 'POST',
    url: '/keys',
    scope: 'keys:write',
    schema: {
      tags,
      operationId: 'createKey',
      summary: 'Create a key',
      description:
        'A new API key of a grant. The answer holds the full key (`key`): store it now, it is never shown again ' +
        '(replays of this request under its Idempotency-Key excepted).',
      body: KeyCreate,
      response: adminResponses({ status: 201, schema: CreatedKeyAnswer }),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(request, reply, unwrap(await createKey(services.store, actor, request.body as KeyCreate)), 201),
  }),
  adminRoute({
    method: 'GET',
    url: '/keys',
    scope: 'accounts:read',
    schema: {
      tags,
      operationId: 'listKeys',
      summary: 'List keys',
      description: 'Keys, oldest first, each with its account and plan; filter by `grantId` or `accountId`.',
      querystring: KeyListQuery,
      response: adminResponses({ status: 200, schema: KeyList }),
    },
    handler: async (request, _reply, { services, actor }) =>
      pageAnswer(request, await listKeys(services.store, actor, request.query as KeyListQuery)),
  }),
  adminRoute({
    method: 'GET',
    url: '/keys/{publicId}',
    scope: 'accounts:read',
    schema: {
      tags,
      operationId: 'getKey',
      summary: 'Get a key',
      description: 'One key by its public id, with its account and plan (never its secret).',
      params: KeyIdParams,
      response: adminResponses({ status: 200, schema: KeyAnswer(false, 'The key') }, [404]),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(request, reply, unwrap(await getKey(services.store, actor, request.params as PublicId))),
  }),
  adminRoute({
    method: 'POST',
    url: '/keys/{publicId}/revoke',
    scope: 'keys:write',
    schema: {
      tags,
      operationId: 'revokeKey',
      summary: 'Revoke a key',
      description:
        'Revokes the key, for good; revoking a revoked key changes nothing. Every running instance refuses it ' +
        'within 2 seconds.',
      params: KeyIdParams,
      response: adminResponses({ status: 200, schema: KeyAnswer(true, 'The key, revoked') }, [404]),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(request, reply, unwrap(await revokeKey(services.store, actor, request.params as PublicId))),
  }),
  adminRoute({
    method: 'POST',
    url: '/keys/{publicId}/roll',
    scope: 'keys:write',
    schema: {
      tags,
      operationId: 'rollKey',
      summary: 'Roll a key',
      description:
        'A new key of the same grant, label and scopes; the old one keeps working for `gracePeriodSeconds` ' +
        `(default ${DEFAULT_GRACE_PERIOD_SECONDS}), then expires. A revoked or expired key cannot be rolled (409).`,
      params: KeyIdParams,
      body: KeyRoll,
      response: adminResponses({ status: 201, schema: RolledKeyAnswer }, [404, 409]),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(
        request,
        reply,
        unwrap(
          await rollKey(services.store, actor, {
            publicId: (request.params as PublicId).publicId,
            gracePeriodSeconds: (request.body as KeyRoll | undefined)?.gracePeriodSeconds,
          }),
        ),
        201,
      ),
  }),
];
