/**
 * /admin/v1/webhooks: signed webhook subscriptions and their deliveries
 * (docs/webhooks.md). The signing secret is in the answer that makes it (a
 * create, a rotation) and nowhere else; a URL must pass the target policy
 * (MDS_WEBHOOK_ALLOW_HTTP, MDS_WEBHOOK_ALLOW_PRIVATE). Thin over
 * src/use-cases/webhooks.ts.
 */

import { adminResponses } from '../../schemas/admin.js';
import {
  DeliveryAnswer,
  DeliveryIdParams,
  DeliveryList,
  DeliveryListQuery,
  WebhookAnswer,
  WebhookCreate,
  WebhookDeleted,
  WebhookIdParams,
  WebhookList,
  WebhookListQuery,
  WebhookPatch,
  WebhookRotate,
  WebhookSecretAnswer,
} from '../../schemas/admin-webhooks.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  redeliverWebhook,
  rotateWebhookSecret,
  updateWebhook,
} from '../../use-cases/webhooks.js';
import { type AdminRoute, adminRoute, answer, pageAnswer, unwrap } from './route.js';

type Id = { id: string };
const tags = ['Webhooks'];
const scope = 'webhooks:write';

export const webhookRoutes: AdminRoute[] = [
  adminRoute({
    method: 'POST',
    url: '/webhooks',
    scope,
    schema: {
      tags,
      operationId: 'createWebhook',
      summary: 'Create a webhook subscription',
      description:
        'A subscription to the events listed, delivered to `url` (https://, a public host) and signed with its ' +
        'secret (`secret`): store it now, it is never shown again (replays of this request under its ' +
        'Idempotency-Key excepted). A `rate.alert` subscription needs a `filter`, whose condition fires when ' +
        'it becomes true after the subscription is made.',
      body: WebhookCreate,
      response: adminResponses({
        status: 201,
        schema: WebhookSecretAnswer('The subscription and its secret'),
      }),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(
        request,
        reply,
        unwrap(
          await createWebhook(services.store, actor, request.body as WebhookCreate, {
            policy: services.webhooks.policy,
            now: services.now(),
          }),
        ),
        201,
      ),
  }),
  adminRoute({
    method: 'GET',
    url: '/webhooks',
    scope,
    schema: {
      tags,
      operationId: 'listWebhooks',
      summary: 'List webhook subscriptions',
      description:
        'Subscriptions, oldest first, a page at a time, without their secrets; filter by `accountId`.',
      querystring: WebhookListQuery,
      response: adminResponses({ status: 200, schema: WebhookList }),
    },
    handler: async (request, _reply, { services, actor }) =>
      pageAnswer(
        request,
        await listWebhooks(services.store, actor, request.query as WebhookListQuery, { now: services.now() }),
      ),
  }),
  adminRoute({
    method: 'GET',
    url: '/webhooks/{id}',
    scope,
    schema: {
      tags,
      operationId: 'getWebhook',
      summary: 'Get a webhook subscription',
      description: 'One subscription by its id, without its secret.',
      params: WebhookIdParams,
      response: adminResponses({ status: 200, schema: WebhookAnswer(false, 'The subscription') }, [404]),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(
        request,
        reply,
        unwrap(await getWebhook(services.store, actor, request.params as Id, { now: services.now() })),
      ),
  }),
  adminRoute({
    method: 'PATCH',
    url: '/webhooks/{id}',
    scope,
    schema: {
      tags,
      operationId: 'updateWebhook',
      summary: 'Change a webhook subscription',
      description:
        'Changes the fields given, with the rules of a new subscription. `enabled: false` stops its ' +
        'deliveries, `enabled: true` resumes them (and clears `disabledReason`, also after deliveries failed ' +
        'for a day). A new `filter` fires when it becomes true after the change.',
      params: WebhookIdParams,
      body: WebhookPatch,
      response: adminResponses(
        { status: 200, schema: WebhookAnswer(true, 'The subscription as changed') },
        [404],
      ),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(
        request,
        reply,
        unwrap(
          await updateWebhook(
            services.store,
            actor,
            { ...(request.body as WebhookPatch), id: (request.params as Id).id },
            { policy: services.webhooks.policy, now: services.now() },
          ),
        ),
      ),
  }),
  adminRoute({
    method: 'DELETE',
    url: '/webhooks/{id}',
    scope,
    schema: {
      tags,
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook subscription',
      description:
        'Deletes the subscription with its deliveries and their attempts; the audit log keeps the record.',
      params: WebhookIdParams,
      response: adminResponses({ status: 204, schema: WebhookDeleted }, [404]),
    },
    handler: async (request, reply, { services, actor }) => {
      unwrap(await deleteWebhook(services.store, actor, request.params as Id, { now: services.now() }));
      return reply.code(204).send();
    },
  }),
  adminRoute({
    method: 'POST',
    url: '/webhooks/{id}/rotate-secret',
    scope,
    schema: {
      tags,
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate a webhook subscription’s secret',
      description:
        'A new secret (`secret`, shown this once) signs every delivery from now; the one before keeps signing ' +
        'beside it for 24 hours (`previousSecretExpiresAt`; `oldSecretExpiresInSeconds` sets another overlap, 0 ' +
        'none), so the receiver can switch at any moment of the overlap. A second rotation within it ends the ' +
        'oldest secret at once.',
      params: WebhookIdParams,
      body: WebhookRotate,
      response: adminResponses(
        { status: 200, schema: WebhookSecretAnswer('The subscription and its new secret') },
        [404],
      ),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(
        request,
        reply,
        unwrap(
          await rotateWebhookSecret(
            services.store,
            actor,
            {
              ...(request.params as Id),
              ...((request.body ?? {}) as { oldSecretExpiresInSeconds?: number }),
            },
            { now: services.now() },
          ),
        ),
      ),
  }),
  adminRoute({
    method: 'GET',
    url: '/webhooks/{id}/deliveries',
    scope,
    schema: {
      tags,
      operationId: 'listWebhookDeliveries',
      summary: 'List a webhook subscription’s deliveries',
      description: 'Its deliveries, newest first, a page at a time, each with the log of its attempts.',
      params: WebhookIdParams,
      querystring: DeliveryListQuery,
      response: adminResponses({ status: 200, schema: DeliveryList }, [404]),
    },
    handler: async (request, _reply, { services, actor }) =>
      pageAnswer(
        request,
        await listWebhookDeliveries(services.store, actor, {
          ...(request.query as DeliveryListQuery),
          id: (request.params as Id).id,
        }),
      ),
  }),
  adminRoute({
    method: 'POST',
    url: '/webhooks/{id}/deliveries/{deliveryId}/redeliver',
    scope,
    schema: {
      tags,
      operationId: 'redeliverWebhook',
      summary: 'Deliver an event again',
      description:
        'Queues the delivery again now, whatever its status, its retry schedule starting over; the receiver ' +
        'gets the same event (`webhook-id`) again. A disabled subscription’s delivery waits until it is enabled.',
      params: DeliveryIdParams,
      response: adminResponses({ status: 202, schema: DeliveryAnswer }, [404]),
    },
    handler: async (request, reply, { services, actor }) =>
      answer(
        request,
        reply,
        unwrap(
          await redeliverWebhook(services.store, actor, request.params as Id & { deliveryId: string }, {
            now: services.now(),
          }),
        ),
        202,
      ),
  }),
];
