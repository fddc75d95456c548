/**
 * The webhook events (docs/decisions.md, 68; docs/webhooks.md, "Events"): one
 * TypeBox schema per event type and the union of the payloads they allow.
 * What an event's `data` holds is written here and nowhere else: each event
 * is built by its builder (webhook-builders.ts), typed by its schema; storage
 * writes what the builders return and derives the rows they read; the admin
 * OpenAPI document publishes the schemas as its `webhooks`
 * (http/admin/openapi.ts); test/docs/webhooks-table.test.ts holds the table
 * of docs/webhooks.md to them.
 */
import {
  type SchemaOptions,
  type Static,
  type TLiteral,
  type TObject,
  type TProperties,
  type TSchema,
  Type,
} from '@sinclair/typebox';
import { KEY_ENVIRONMENTS } from './keys.js';
import { SOURCES } from './types.js';
import { EVENT_TYPES, type EventType, USAGE_THRESHOLDS } from './webhooks.js';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const literals = <T extends string>(values: readonly T[], options: SchemaOptions = {}) =>
  Type.Union(values.map((v) => Type.Literal(v)) as TLiteral<T>[], options);
const Instant = (description: string) =>
  Type.String({ format: 'date-time', description, examples: ['2026-11-26T10:00:00.000Z'] });
const Id = (description: string, example: string) => Type.String({ description, examples: [example] });
const Count = (description: string) => Type.Integer({ minimum: 0, description });

/**
 * A `rate.alert` condition, as a subscription's `filter` takes it (the admin
 * API's bodies, schemas/admin-webhooks.ts) and as its event repeats it.
 */
export const alertFilter = (component?: string) =>
  Type.Object(
    {
      metric: literals(['rate', 'premium'] as const, {
        description:
          '`rate`: a source’s rate in DZD; `premium`: the parallel rate over the official one, in percent',
        errorMessage: 'must be rate or premium',
      }),
      currency: Type.String({
        minLength: 1,
        maxLength: 20,
        description: 'A currency of the asset directory (GET /v1/assets)',
        examples: ['EUR'],
      }),
      source: Type.Optional(
        literals(SOURCES, {
          description: 'The rate’s source family: required for `rate`, absent for `premium`',
          errorMessage: 'must be parallel, official or transfer',
        }),
      ),
      side: literals(['buy', 'sell'] as const, {
        description: 'Which side of the quote',
        errorMessage: 'must be buy or sell',
      }),
      above: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 24,
          description: 'Fires when the value reaches this level or more (a decimal: DZD, or percent)',
          examples: ['270'],
        }),
      ),
      below: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 24,
          description: 'Fires when the value falls to this level or less (a decimal: DZD, or percent)',
          examples: ['240.5'],
        }),
      ),
    },
    {
      ...(component ? { component } : {}),
      additionalProperties: false,
      description:
        'A `rate.alert` condition, exactly one of `above` and `below`: it fires when it becomes true, once, ' +
        'and again only after it has been false',
    },
  );

const keyFields = {
  keyId: Id('The key’s public id', 'a1b2c3d4e5f6'),
  grantId: Id('Its grant', 'grt_b7n4v1c8x2z5l9k3'),
  accountId: Id('The grant’s account', 'acc_x3k9m2p7q1w8e5r4'),
  label: Type.String({ description: 'The key’s label' }),
  environment: literals(KEY_ENVIRONMENTS, { description: 'Which environment the key serves' }),
  expiresAt: Nullable(Instant('When the key expires; null: never')),
};
const freshness = {
  family: literals([...SOURCES, 'gold'] as const, { description: 'The family, as `/status` names it' }),
  updatedAt: Nullable(Instant('Its newest observation’s time; null when it has none')),
  ageSeconds: Nullable(Count('Whole seconds since `updatedAt`; null without an observation')),
  thresholdSeconds: Count('Its `MDS_STALE_AFTER` threshold'),
};
const data = <P extends TProperties>(description: string, properties: P) =>
  Type.Object(properties, { description, additionalProperties: false });

/**
 * Each type's `data`, in the order docs/webhooks.md lists them; each
 * description says when the event is sent (the table's "When").
 */
export const EVENT_DATA = {
  'usage.threshold': data(
    'a grant reached 80 % and then 100 % of its monthly quota: once per threshold and month',
    {
      grantId: Id('The grant', 'grt_b7n4v1c8x2z5l9k3'),
      accountId: Id('Its account', 'acc_x3k9m2p7q1w8e5r4'),
      period: Type.String({ description: 'The month, UTC', examples: ['2026-11'] }),
      threshold: Type.Union(
        USAGE_THRESHOLDS.map((t) => Type.Literal(t)),
        { description: 'The percent of the monthly limit reached' },
      ),
      used: Count(
        'The requests at which the threshold is reached: the monthly limit times the threshold, rounded up',
      ),
      monthlyRequestLimit: Count('The grant’s monthly limit'),
    },
  ),
  'key.created': data('a key was created (or made by a roll)', keyFields),
  'key.revoked': data('a key was revoked', {
    ...keyFields,
    revokedAt: Instant('When it was revoked'),
  }),
  'key.expiring': data('an active key expires within 7 days: once per key and expiry', {
    keyId: keyFields.keyId,
    grantId: keyFields.grantId,
    accountId: keyFields.accountId,
    expiresAt: Instant('When the key expires'),
  }),
  'grant.updated': data('a grant’s status, scopes, limits or end changed', {
    grantId: Id('The grant', 'grt_b7n4v1c8x2z5l9k3'),
    accountId: Id('Its account', 'acc_x3k9m2p7q1w8e5r4'),
    status: literals(['active', 'suspended', 'cancelled'] as const, { description: 'Its status now' }),
    changes: Type.Record(
      Type.String(),
      Type.Object({ before: Type.Unknown(), after: Type.Unknown() }, { additionalProperties: false }),
      { description: 'Each field changed, `{ field: { before, after } }`, as the audit log records it' },
    ),
  }),
  'data.imported': data('an import wrote observations', {
    importId: Id('The import', 'imp_k3j5h7g9f1d2'),
    kind: Type.String({ description: 'What it imported: `rates` or `gold`', examples: ['rates'] }),
    sources: Type.Array(Type.String(), { description: 'The source families it wrote' }),
    counts: Type.Object(
      {
        received: Count('Records read'),
        inserted: Count('Observations written new'),
        updated: Count('Observations changed'),
        unchanged: Count('Records equal to what was stored'),
      },
      { additionalProperties: false },
    ),
    newestUpdatedAt: Nullable(Instant('The newest observation it wrote')),
  }),
  'data.retracted': data('an operator retracted a published observation', {
    retractionId: Id('The retraction', 'ret_k3j5h7g9f1d2s4a6'),
    kind: literals(['rates', 'gold'] as const, { description: 'What was retracted' }),
    code: Type.String({ description: 'The currency, or the purity for gold', examples: ['EUR'] }),
    source: literals([...SOURCES, 'gold'] as const, { description: 'The rate’s source family, or `gold`' }),
    updatedAt: Instant('The retracted observation’s time'),
    buy: Type.Number({ description: 'The buy price it published, DZD' }),
    sell: Type.Number({ description: 'The sell price it published, DZD' }),
    latest: Nullable(
      Type.Object(
        {
          updatedAt: Instant('Its time'),
          buy: Type.Number({ description: 'DZD' }),
          sell: Type.Number({ description: 'DZD' }),
        },
        {
          additionalProperties: false,
          description: 'The series’ latest observation now; null: none is left',
        },
      ),
    ),
  }),
  'data.stale': data(
    'a published family’s newest observation passed its `MDS_STALE_AFTER` threshold (as `/status`)',
    freshness,
  ),
  'data.fresh': data('a stale family is fresh again', freshness),
  'rate.alert': data('the subscription’s filter became true after an import, having been false', {
    subscriptionId: Id('The subscription whose filter it is', 'whk_k3j5h7g9f1d2s4a6'),
    filter: alertFilter(),
    value: Type.Number({ description: 'The value that made it true: DZD, or percent' }),
    observedAt: Instant('The time of the observation the value comes from'),
  }),
  'reporter.flagged': data(
    'a reporter’s own quotes failed the exclusion test in more than 30 % of its last 20: once per flagging',
    {
      reporterId: Id('The reporter’s pseudonym', 'rep_m2x8k1p4q7w3e9r5'),
      organisationId: Id('Its organisation', 'org_k3j5h7g9f1d2s4a6'),
      failed: Count('How many of its last quotes failed the test on their own'),
      sample: Count('How many of its last quotes were looked at: 20, or fewer if it sent fewer'),
      quoteId: Id('Its newest quote, on which it was found flagged', 'quo_q8w2e4r6t1y3u5i7'),
    },
  ),
} satisfies { [T in EventType]: TObject };

/** A delivery's body, of one event type: the same bytes on every attempt. */
const envelope = <T extends EventType>(type: T) =>
  Type.Object(
    {
      type: Type.Literal(type),
      id: Id('The event’s id, its `webhook-id`: the same on every attempt', 'evt_0mhf3k2a1Qx8Yb2cTr9p'),
      createdAt: Instant('When the event was written'),
      data: EVENT_DATA[type],
    },
    { additionalProperties: false },
  );

/** Each event type's whole payload, the body of its deliveries. */
export const EVENT_SCHEMAS = Object.fromEntries(EVENT_TYPES.map((t) => [t, envelope(t)])) as {
  [T in EventType]: ReturnType<typeof envelope<T>>;
};
/** Every payload the service sends. */
export const WebhookEvent = Type.Union(EVENT_TYPES.map((t) => EVENT_SCHEMAS[t]));

export type EventData<T extends EventType> = Static<(typeof EVENT_DATA)[T]>;

/** An event to write to the outbox: its type and its `data`, as its schema allows. */
export type NewEvent = {
  [T in EventType]: {
    type: T;
    /** The account it concerns: delivered to subscriptions of that account and to those of none. */
    accountId: string | null;
    data: EventData<T>;
    /** Written once per key: a second event with the same key is dropped. */
    dedupeKey?: string;
    /** A rate alert goes to its own subscription only. */
    subscriptionId?: string;
  };
}[EventType];

/** The body of every delivery, as the outbox stores it (its `id` is the `webhook-id`). */
export function eventPayload(id: string, event: NewEvent, at: number): string {
  return JSON.stringify({ type: event.type, id, createdAt: new Date(at).toISOString(), data: event.data });
}
