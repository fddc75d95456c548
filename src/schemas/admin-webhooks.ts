/**
 * The admin API's webhook subscriptions and their deliveries (docs/decisions.md
 * 68, docs/webhooks.md): the resources, bodies, queries and answers of
 * /admin/v1/webhooks. A subscription's signing secret is in the answer that
 * makes it (a create, a rotation) and in no other; `component` names each
 * schema's component in the admin OpenAPI document (docs/decisions.md 64).
 */
import { type SchemaOptions, type Static, type TLiteral, Type } from '@sinclair/typebox';
import { alertFilter } from '../domain/webhook-events.js';
import { EVENT_TYPES } from '../domain/webhooks.js';
import { adminAnswer, adminList, adminNoContent, Nullable } from './admin.js';
import { CursorParam, LimitParam, Timestamp } from './common.js';
import { Defaulted } from './query.js';

const Paging = { limit: Defaulted(LimitParam, 100), cursor: Type.Optional(CursorParam) };
const literals = <T extends string>(values: readonly T[], options: SchemaOptions) =>
  Type.Union(values.map((v) => Type.Literal(v)) as TLiteral<T>[], options);

export const WEBHOOK_ID_EXAMPLE = 'whk_k3j5h7g9f1d2s4a6';
/** At most this many characters of a URL: what a browser or proxy reliably passes. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

export const WebhookEventType = literals(EVENT_TYPES, {
  component: 'WebhookEventType',
  description: 'An event a subscription receives (docs/webhooks.md, "Events")',
  errorMessage: `must be one of ${EVENT_TYPES.join(', ')}`,
});

const EventTypes = Type.Array(WebhookEventType, {
  minItems: 1,
  maxItems: EVENT_TYPES.length,
  uniqueItems: true,
  description: 'The events to deliver, each once',
  errorMessage: 'must list at least one event type, each once',
});

export const AlertFilter = alertFilter('AlertFilter');
/**
 * Where the filter may be null it is written out: the document's nullable
 * reference to an object component would be a union without a `type`, which
 * Scalar's reference refuses (http/openapi-components.ts).
 */
const NullableFilter = Nullable(alertFilter());

const webhookFields = {
  id: Type.String({ description: 'Subscription id', examples: [WEBHOOK_ID_EXAMPLE] }),
  url: Type.String({
    description: 'Where deliveries are POSTed',
    examples: ['https://example.com/webhooks/mds'],
  }),
  eventTypes: Type.Array(WebhookEventType),
  accountId: Nullable(
    Type.String({ description: 'Only this account’s events and those of no account; null: every event' }),
  ),
  filter: NullableFilter,
  description: Nullable(Type.String()),
  status: literals(['enabled', 'disabled'] as const, {
    description: 'Only an enabled subscription is delivered to',
  }),
  disabledReason: Nullable(
    Type.String({
      description: 'Who disabled it, or the deliveries that failed for a day; null when enabled',
    }),
  ),
  alertActive: Type.Boolean({
    description: 'Whether the `filter` held when last evaluated; it fires only on turning true',
  }),
  previousSecretExpiresAt: Nullable(
    Type.String({
      format: 'date-time',
      description:
        'Until when the secret before the last rotation still signs beside the current one; null outside that overlap',
      examples: ['2027-01-02T00:00:00.000Z'],
    }),
  ),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const Webhook = Type.Object(webhookFields, { component: 'Webhook' });

export const WebhookWithSecret = Type.Object(
  {
    ...webhookFields,
    secret: Type.String({
      description:
        'The signing secret (docs/webhooks.md, "Verifying a delivery"): shown this once, never again',
      examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    }),
  },
  { component: 'WebhookWithSecret' },
);

export const WebhookAttempt = Type.Object(
  {
    n: Type.Integer({ minimum: 1, description: 'The attempt’s number, from 1' }),
    at: Timestamp,
    statusCode: Nullable(Type.Integer({ description: 'The receiver’s HTTP status; null when none came' })),
    error: Nullable(
      Type.String({ description: 'Why it failed (a timeout, a refused address); null on success' }),
    ),
    durationMs: Type.Integer({ minimum: 0 }),
    responsePrefix: Type.String({ description: 'The start of the receiver’s answer' }),
  },
  { component: 'WebhookAttempt' },
);

export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ description: 'Delivery id', examples: ['dlv_0m3x8k2ab1c2d3e4f_k3j5h7g9f1d2s4a6'] }),
    eventId: Type.String({
      description: 'The event’s id, its `webhook-id`',
      examples: ['evt_0m3x8k2ab1c2d3e4f'],
    }),
    eventType: Type.String({ examples: ['key.created'] }),
    status: literals(['pending', 'delivered', 'failed'] as const, {
      description:
        'pending: an attempt is due; delivered: a 2xx came; failed: every attempt of the schedule failed',
    }),
    attempts: Type.Integer({ minimum: 0 }),
    nextAttemptAt: Nullable(Timestamp),
    lastStatus: Nullable(Type.Integer()),
    lastError: Nullable(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    log: Type.Array(WebhookAttempt, { description: 'Every attempt, oldest first' }),
  },
  { component: 'WebhookDelivery' },
);

// ---- Bodies -------------------------------------------------------------------

const Url = Type.String({
  minLength: 1,
  maxLength: MAX_WEBHOOK_URL_LENGTH,
  description: 'An https:// URL of a public host',
  examples: ['https://example.com/webhooks/mds'],
  errorMessage: `must be a URL of 1 to ${MAX_WEBHOOK_URL_LENGTH} characters`,
});
const Description = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description: 'What it is for, for people',
  examples: ['Billing: keys and usage'],
  errorMessage: 'must be 1 to 200 characters, not blank',
});
const AccountId = Type.String({ minLength: 1, maxLength: 100, examples: ['acc_x3k9m2p7q1w8e5r4'] });

export const WebhookCreate = Type.Object(
  {
    url: Url,
    eventTypes: EventTypes,
    accountId: Type.Optional(AccountId),
    filter: Type.Optional(AlertFilter),
    description: Type.Optional(Description),
  },
  {
    component: 'WebhookCreate',
    additionalProperties: false,
    description: 'A new subscription; `filter` with `rate.alert` only, and required by it',
  },
);

export const WebhookPatch = Type.Object(
  {
    url: Type.Optional(Url),
    eventTypes: Type.Optional(EventTypes),
    accountId: Type.Optional(Nullable(AccountId)),
    filter: Type.Optional(NullableFilter),
    description: Type.Optional(Nullable(Description)),
    enabled: Type.Optional(Type.Boolean({ description: 'false disables it, true enables it again' })),
  },
  {
    component: 'WebhookPatch',
    additionalProperties: false,
    minProperties: 1,
    description: 'The fields to change; null clears one',
  },
);

export const WebhookRotate = Type.Object(
  {
    oldSecretExpiresInSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 604_800,
        default: 86_400,
        description:
          'How long the secret being replaced keeps signing beside the new one: 0 ends it at once ' +
          '(a leaked secret), at most 7 days; 24 hours when absent',
      }),
    ),
  },
  {
    component: 'WebhookRotate',
    additionalProperties: false,
    description: 'How long the old secret overlaps the new one',
  },
);

// ---- Parameters -------------------------------------------------------------------

export const WebhookListQuery = Type.Object(
  {
    accountId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 320,
        description: 'Only this account’s subscriptions',
        examples: ['acc_x3k9m2p7q1w8e5r4'],
      }),
    ),
    ...Paging,
  },
  { additionalProperties: false },
);
export const DeliveryListQuery = Type.Object({ ...Paging }, { additionalProperties: false });

const WebhookId = Type.String({ minLength: 1, maxLength: 100, examples: [WEBHOOK_ID_EXAMPLE] });
export const WebhookIdParams = Type.Object({ id: WebhookId });
export const DeliveryIdParams = Type.Object({
  id: WebhookId,
  deliveryId: Type.String({
    minLength: 1,
    maxLength: 200,
    examples: ['dlv_0m3x8k2ab1c2d3e4f_k3j5h7g9f1d2s4a6'],
  }),
});

// ---- Answers -------------------------------------------------------------------

export const WebhookAnswer = (write: boolean, description: string) =>
  adminAnswer(Webhook, description, write);
export const WebhookSecretAnswer = (description: string) => adminAnswer(WebhookWithSecret, description, true);
export const DeliveryAnswer = adminAnswer(WebhookDelivery, 'The delivery, queued again', true);
export const WebhookList = adminList(Webhook, 'A page of subscriptions, oldest first (never a secret)');
export const DeliveryList = adminList(
  WebhookDelivery,
  'A page of the subscription’s deliveries, newest first, each with its attempts',
);
export const WebhookDeleted = adminNoContent('Deleted, with its deliveries: nothing more is sent to it');

export type AlertFilter = Static<typeof AlertFilter>;
export type WebhookCreate = Static<typeof WebhookCreate>;
export type WebhookPatch = Static<typeof WebhookPatch>;
export type WebhookListQuery = Static<typeof WebhookListQuery>;
export type DeliveryListQuery = Static<typeof DeliveryListQuery>;
