/**
 * The admin API's schemas (docs/decisions.md 58): the resources, the bodies and
 * queries of /admin/v1, its error answers. They validate requests
 * (http/admin/validation.ts), type the handlers, serialize the answers and
 * generate /admin/openapi.json.
 *
 * Times are ISO 8601 strings in UTC with milliseconds, as on /v1. `component`
 * names a schema's component in the admin OpenAPI document (docs/decisions.md 64).
 *
 * Longer than 300 lines because it is the admin API's whole vocabulary (each
 * resource, body, query and answer, and the error statuses), read together
 * the way the document presents it.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ADMIN_SCOPES } from '../domain/admin-tokens.js';
import { CursorParam, LimitParam, RequestId, RequestMeta, Timestamp } from './common.js';
import { type ErrorCode, errorBody, errorResponse } from './errors.js';
import { ImportNotes, ImportRefusedInfo } from './import-report.js';
import { Defaulted } from './query.js';

/** The scopes of an admin token, one list (domain/admin-tokens.ts); each admin route requires one (docs/decisions.md 58). */
export type { AdminScope } from '../domain/admin-tokens.js';

/** The value or null; a refusal says the value's rule (a union's own sentence would be "expected union value"). */
export const Nullable = <T extends TSchema>(schema: T) =>
  Type.Union([schema, Type.Null()], schema.errorMessage ? { errorMessage: schema.errorMessage } : {});
const Id = (description: string, example: string) => Type.String({ description, examples: [example] });

// The rule of each kind of field, one for the admin API and the CLI alike
// (schemas/admin-check.ts; test/use-cases/refusals.test.ts drives both).

/** A name or a plan: not blank, no control characters. */
export const Text = (max: number, description: string) =>
  Type.String({
    minLength: 1,
    maxLength: max,
    pattern: '^[^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f][^\\u0000-\\u001f\\u007f]*$',
    description,
    errorMessage: `must be 1 to ${max} characters, not blank, without control characters`,
  });
/** Another system's id (a customer, a subscription, a provider's name): printable, no surrounding spaces. */
const Identifier = (max: number, description: string, example: string) =>
  Type.String({
    minLength: 1,
    maxLength: max,
    pattern: '^[^\\s\\u0000-\\u001f\\u007f](?:[^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f])?$',
    description,
    examples: [example],
    errorMessage: `must be 1 to ${max} printable characters, without surrounding spaces`,
  });
const Instant = (description: string) =>
  Type.String({
    format: 'date-time',
    description,
    examples: ['2027-01-01T00:00:00.000Z'],
    errorMessage: 'must be an ISO 8601 date-time such as 2027-01-01T00:00:00Z',
  });
const Email = Type.String({
  maxLength: 254,
  pattern: '^[^\\s@]+@[^\\s@]+$',
  description: 'Billing contact address',
  errorMessage: 'must be an email address',
});
const ExternalId = Identifier(
  255,
  'The billing system’s own id for it (a customer or subscription id)',
  'cus_9s8d7f6g',
);
const GrantStatus = Type.Union(
  [Type.Literal('active'), Type.Literal('suspended'), Type.Literal('cancelled')],
  {
    component: 'GrantStatus',
    description: 'active ⇄ suspended, either → cancelled (final)',
    errorMessage: 'must be one of active, suspended, cancelled',
  },
);
const Scopes = Type.Array(
  Type.String({
    maxLength: 100,
    format: 'scope',
    description: 'An entitlement or a legacy umbrella',
    errorMessage: 'unknown scope {value}',
  }),
  {
    minItems: 1,
    maxItems: 50,
    description: 'Entitlements (docs/decisions.md §4; legacy umbrellas accepted)',
    errorMessage: 'must list 1 to 50 scopes',
  },
);
const MAX_LIMIT = 1_000_000_000_000;
const PositiveInt = (description: string) =>
  Type.Integer({
    minimum: 1,
    maximum: MAX_LIMIT,
    description,
    errorMessage: `must be an integer from 1 to ${MAX_LIMIT}`,
  });

// ---- Resources --------------------------------------------------------------

export const Account = Type.Object(
  {
    id: Id('Account id', 'acc_x3k9m2p7q1w8e5r4'),
    name: Nullable(Type.String()),
    email: Nullable(Type.String()),
    externalId: Nullable(Type.String({ description: 'The billing system’s customer id; unique' })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { component: 'Account' },
);

export const Grant = Type.Object(
  {
    id: Id('Grant id', 'grt_b7n4v1c8x2z5l9k3'),
    accountId: Type.String(),
    provider: Type.String({ description: 'Who sold the grant (a payment provider, `manual`)' }),
    externalId: Nullable(
      Type.String({ description: 'The provider’s id for it (a subscription id); unique per provider' }),
    ),
    plan: Type.String(),
    status: GrantStatus,
    scopes: Type.Array(Type.String(), { description: 'As stored (legacy umbrellas included)' }),
    entitlements: Type.Array(Type.String(), { description: 'What the scopes grant, expanded and sorted' }),
    validFrom: Timestamp,
    validUntil: Timestamp,
    monthlyRequestLimit: Type.Integer(),
    requestsPerMinute: Type.Integer(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { component: 'Grant' },
);

export const Key = Type.Object(
  {
    publicId: Id('The key’s public id', 'a1b2c3d4e5f6'),
    prefix: Type.String({ examples: ['mds_live_a1b2c3d4e5f6'] }),
    grantId: Type.String(),
    accountId: Type.String({ description: 'The account of the key’s grant' }),
    plan: Type.String({ description: 'The plan of the key’s grant' }),
    label: Type.String(),
    environment: Type.Union([Type.Literal('live'), Type.Literal('test')]),
    scopes: Nullable(Type.Array(Type.String(), { description: 'Null: the grant’s scopes' })),
    status: Type.Union([Type.Literal('active'), Type.Literal('revoked')], {
      description: 'As stored: `revoked` once revoked, else `active`, whatever its expiry or its grant',
    }),
    effectiveStatus: Type.Union(
      [
        Type.Literal('active'),
        Type.Literal('revoked'),
        Type.Literal('grant_cancelled'),
        Type.Literal('expired'),
        Type.Literal('grant_suspended'),
        Type.Literal('grant_expired'),
        Type.Literal('grant_not_started'),
      ],
      {
        description:
          'Whether the key works now (`active`), else the first reason it does not: revoked, its grant ' +
          'cancelled, past its `expiresAt` (a rolled key past its grace period), its grant suspended, past ' +
          'its `validUntil` or before its `validFrom`',
      },
    ),
    expiresAt: Nullable(Timestamp),
    lastUsedAt: Nullable(Timestamp),
    createdAt: Timestamp,
    revokedAt: Nullable(Timestamp),
  },
  { component: 'Key' },
);

export const AdminToken = Type.Object(
  {
    publicId: Type.String({
      description: 'The token’s public id, the audit log’s actor',
      examples: ['adm_k2j4h6g8f0d1'],
    }),
    label: Type.String(),
    scopes: Type.Array(Type.String(), { description: 'What the token may do' }),
    status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
    createdAt: Timestamp,
    lastUsedAt: Nullable(Timestamp),
    revokedAt: Nullable(Timestamp),
  },
  { component: 'AdminToken' },
);

/** The full key, shown once, when it is created (or rolled). */
const Secret = Type.String({
  description: 'The full key: shown this once, never again',
  examples: ['mds_live_a1b2c3d4e5f6_…'],
});

export const AuditRecord = Type.Object(
  {
    id: Type.String(),
    at: Timestamp,
    actor: Type.Object({
      id: Type.String({ description: 'An admin token’s public id, `cli` or `system`' }),
      label: Type.String(),
    }),
    action: Type.String({ examples: ['grant.update'] }),
    targetId: Type.String(),
    changes: Type.Record(Type.String(), Type.Object({ before: Type.Unknown(), after: Type.Unknown() }), {
      description: 'Each changed field, before and after (never a secret, a digest or a full key)',
    }),
    requestId: Nullable(Type.String({ description: 'The admin API request’s id, or the import’s' })),
  },
  { component: 'AuditRecord' },
);

// ---- Bodies -------------------------------------------------------------------

const body = <T extends Record<string, TSchema>>(component: string, properties: T, description: string) =>
  Type.Object(properties, { component, additionalProperties: false, description });

/** A change must change something: `{}` is refused as the CLI refuses an update without an option. */
const patch = <T extends Record<string, TSchema>>(component: string, properties: T, description: string) =>
  Type.Object(properties, {
    component,
    additionalProperties: false,
    minProperties: 1,
    description,
    errorMessage: 'nothing to change: give at least one field',
  });

export const AccountCreate = body(
  'AccountCreate',
  {
    name: Type.Optional(Text(200, 'Display name')),
    email: Type.Optional(Email),
    externalId: Type.Optional(ExternalId),
  },
  'A new account',
);
export const AccountPatch = patch(
  'AccountPatch',
  {
    name: Type.Optional(Nullable(Text(200, 'Display name'))),
    email: Type.Optional(Nullable(Email)),
    externalId: Type.Optional(Nullable(ExternalId)),
  },
  'The fields to change; null clears one',
);

export const GrantCreate = body(
  'GrantCreate',
  {
    accountId: Type.String({ minLength: 1, errorMessage: 'is required' }),
    plan: Text(100, 'A plan of the catalogue, whose limits and scopes apply unless given here'),
    scopes: Type.Optional(Scopes),
    monthlyRequestLimit: Type.Optional(PositiveInt('Requests per calendar month (UTC)')),
    requestsPerMinute: Type.Optional(PositiveInt('Requests per UTC minute')),
    provider: Type.Optional(Identifier(64, 'Who sold the grant; default `manual`', 'stripe')),
    externalId: Type.Optional(ExternalId),
    validFrom: Type.Optional(Instant('Default now')),
    validUntil: Type.Optional(Instant('Default: no end')),
  },
  'A new grant: a plan of the catalogue or explicit limits',
);
export const GrantPatch = patch(
  'GrantPatch',
  {
    status: Type.Optional(GrantStatus),
    scopes: Type.Optional(Scopes),
    monthlyRequestLimit: Type.Optional(PositiveInt('Requests per calendar month (UTC)')),
    requestsPerMinute: Type.Optional(PositiveInt('Requests per UTC minute')),
    validUntil: Type.Optional(Instant('When the grant ends')),
  },
  'The fields to change',
);

export const KeyCreate = body(
  'KeyCreate',
  {
    grantId: Type.String({ minLength: 1, errorMessage: 'is required' }),
    label: Type.Optional(
      Type.String({
        maxLength: 200,
        pattern: '^[^\\u0000-\\u001f\\u007f]*$',
        errorMessage: 'must be at most 200 characters, without control characters',
      }),
    ),
    environment: Type.Optional(
      Type.Union([Type.Literal('live'), Type.Literal('test')], { errorMessage: 'must be live or test' }),
    ),
    scopes: Type.Optional(Scopes),
    expiresAt: Type.Optional(Instant('Default: never')),
  },
  'A new key of a grant',
);
export const KeyRoll = body(
  'KeyRoll',
  {
    gracePeriodSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 7_776_000,
        description: 'How long the old key keeps working, in seconds, at most 90 days (default 86400)',
        errorMessage: 'must be a whole number of seconds from 0 to 7776000 (90 days)',
      }),
    ),
  },
  'How to roll the key',
);
export const DEFAULT_GRACE_PERIOD_SECONDS = 86_400;

const AdminScopes = (description: string) =>
  Type.Array(
    Type.String({
      maxLength: 100,
      format: 'admin-scope',
      errorMessage: `unknown scope {value}; the admin scopes are ${ADMIN_SCOPES.join(', ')}`,
    }),
    { minItems: 1, description, errorMessage: `list at least one of ${ADMIN_SCOPES.join(', ')}` },
  );

/** A new admin token: `mds admin-tokens create` only (the admin API makes none), judged as the API would. */
export const AdminTokenCreate = body(
  'AdminTokenCreate',
  { label: Text(100, 'What the token is for'), scopes: AdminScopes('What the token may do') },
  'A new admin token',
);
export const AdminTokenPatch = body(
  'AdminTokenPatch',
  {
    scopes: AdminScopes(
      'The token’s scopes from now on, the whole list; each one the calling token holds itself',
    ),
  },
  'The admin token’s new scopes',
);

// ---- Parameters -------------------------------------------------------------------

const filter = (description: string, example: string) =>
  Type.String({ minLength: 1, maxLength: 320, description, examples: [example] });

const Paging = { limit: Defaulted(LimitParam, 100), cursor: Type.Optional(CursorParam) };
/** A page's size as every list operation judges it, whoever asks (use-cases/rules.ts keysetOf). */
export const PageSize = Type.Object({ limit: Type.Optional(LimitParam) });

export const AccountListQuery = Type.Object(
  {
    externalId: Type.Optional(filter('Only the account with this externalId', 'cus_9s8d7f6g')),
    email: Type.Optional(filter('Only accounts with this email', 'billing@example.com')),
    ...Paging,
  },
  { additionalProperties: false },
);
/** The status a grant list is filtered by, as the operation judges it whoever asks (use-cases/grants.ts). */
export const GrantStatusFilter = Type.Object({ status: Type.Optional(GrantStatus) });
export const GrantListQuery = Type.Object(
  {
    accountId: Type.Optional(filter('Only this account’s grants', 'acc_x3k9m2p7q1w8e5r4')),
    provider: Type.Optional(filter('Only grants sold by this provider', 'stripe')),
    externalId: Type.Optional(filter('Only grants with this externalId', 'sub_1a2b3c')),
    status: Type.Optional(GrantStatus),
    ...Paging,
  },
  { additionalProperties: false },
);
export const KeyListQuery = Type.Object(
  {
    grantId: Type.Optional(filter('Only this grant’s keys', 'grt_b7n4v1c8x2z5l9k3')),
    accountId: Type.Optional(filter('Only keys of this account’s grants', 'acc_x3k9m2p7q1w8e5r4')),
    ...Paging,
  },
  { additionalProperties: false },
);
/** The window of an audit list, as the operation judges it whoever asks (use-cases/audit.ts). */
export const AuditWindow = Type.Object(
  { from: Type.Optional(Instant('Inclusive start')), to: Type.Optional(Instant('Inclusive end')) },
  { additionalProperties: false },
);
export const AuditListQuery = Type.Object(
  {
    actor: Type.Optional(filter('Only changes by this actor id', 'adm_k2j4h6g8f0d1')),
    targetId: Type.Optional(filter('Only changes of this resource', 'grt_b7n4v1c8x2z5l9k3')),
    action: Type.Optional(filter('Only this action', 'grant.update')),
    ...AuditWindow.properties,
    ...Paging,
  },
  { additionalProperties: false },
);

export const IdParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100, examples: ['acc_x3k9m2p7q1w8e5r4'] }),
});
export const GrantIdParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100, examples: ['grt_b7n4v1c8x2z5l9k3'] }),
});
export const AdminTokenIdParams = Type.Object({
  publicId: Type.String({ minLength: 1, maxLength: 100, examples: ['adm_k2j4h6g8f0d1'] }),
});
export const KeyIdParams = Type.Object({
  publicId: Type.String({ minLength: 1, maxLength: 100, examples: ['a1b2c3d4e5f6'] }),
});

export const IdempotencyKeyHeader = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7e]+$',
      description:
        'Makes a retry safe: the same key with the same request replays the first answer for 24 hours ' +
        '(`Idempotent-Replayed: true`); with another request it is a 409 `idempotency_key_reused`. ' +
        '1 to 255 printable ASCII characters, per admin token, sent once (on two lines it is a 400).',
      examples: ['webhook-evt_1Nv3kL2eZvKYlo2C'],
    }),
  ),
});

// ---- Answers -------------------------------------------------------------------

const ListMeta = Type.Object(
  {
    requestId: RequestId,
    nextCursor: Nullable(Type.String({ description: 'The next page’s `cursor`; null on the last page' })),
  },
  { component: 'ListMeta' },
);

export const RequestIdHeader = {
  'X-Request-Id': Type.String({
    description: 'Request identifier, equal to meta.requestId (but on a replay)',
  }),
};
export const ReplayedHeader = {
  'Idempotent-Replayed': {
    ...Type.Literal('true', {
      description:
        'Sent when the answer replays a first one under the same Idempotency-Key: the body is the first ' +
        'answer’s, its meta.requestId the first request’s',
    }),
    headerOptional: true,
  },
};

const ok = (data: TSchema, description: string, write: boolean) =>
  ({
    ...Type.Object({ data, meta: RequestMeta }, { additionalProperties: false }),
    description,
    headers: write ? { ...RequestIdHeader, ...ReplayedHeader } : RequestIdHeader,
  }) as TSchema;

const list = (item: TSchema, description: string) =>
  ({
    ...Type.Object({ data: Type.Array(item), meta: ListMeta }, { additionalProperties: false }),
    description,
    headers: RequestIdHeader,
  }) as TSchema;

/** The `error.code`s each status of the admin API can carry. */
export const ADMIN_ERROR_CODES = {
  400: ['invalid_request', 'invalid_parameter', 'invalid_cursor'],
  401: ['missing_admin_token', 'invalid_admin_token'],
  403: ['insufficient_admin_scope'],
  404: ['not_found'],
  409: ['conflict', 'idempotency_key_reused', 'idempotency_key_in_progress'],
  413: ['payload_too_large'],
  414: ['uri_too_long'],
  415: ['unsupported_media_type'],
  429: ['too_many_requests'],
  500: ['internal_error'],
  503: ['service_unavailable'],
  507: ['insufficient_storage'],
} as const satisfies Record<number, readonly ErrorCode[]>;
type AdminErrorStatus = keyof typeof ADMIN_ERROR_CODES;

const RetryAfter = {
  'Retry-After': Type.Integer({ minimum: 1, description: 'Seconds to wait before retrying' }),
};
const RetryAfterSometimes = {
  'Retry-After': {
    ...RetryAfter['Retry-After'],
    headerOptional: true,
    description: 'With `idempotency_key_in_progress`: 1',
  },
};

const ERROR_DESCRIPTIONS: Record<AdminErrorStatus, [string, Record<string, unknown>]> = {
  400: [
    'The body (`invalid_request`), a query parameter (`invalid_parameter`, `invalid_cursor`) or the Idempotency-Key header is invalid; `details` names each problem. A refused data import lists its problems grouped, at most 100 groups, one detail each, and sends the whole report as `error.report`.',
    {},
  ],
  401: [
    'No admin token (`missing_admin_token`), or one that is malformed, unknown or revoked, or an API key (`invalid_admin_token`).',
    { 'WWW-Authenticate': Type.String({ examples: ['Bearer'] }) },
  ],
  403: ['The admin token lacks the scope the operation requires (`insufficient_admin_scope`).', {}],
  404: ['No such resource (`not_found`).', {}],
  409: [
    'A duplicate externalId or an illegal status change (`conflict`); an Idempotency-Key used with another request (`idempotency_key_reused`) or still being processed (`idempotency_key_in_progress`, with `Retry-After: 1`).',
    RetryAfterSometimes,
  ],
  413: ['The body is larger than the operation accepts (`payload_too_large`).', {}],
  414: ['The URL is too long (`uri_too_long`).', {}],
  415: [
    'The body’s Content-Type is not one the operation accepts, or the body is compressed: a Content-Encoding other than `identity` (`unsupported_media_type`).',
    {},
  ],
  429: [
    'Too many failed authentications from this address in the current minute, or, on the data imports, as many ' +
      'imports already running as the process runs at once, MDS_ADMIN_IMPORTS (`too_many_requests`).',
    RetryAfter,
  ],
  500: [
    'An unexpected failure (`internal_error`). A POST or PATCH with an Idempotency-Key can be retried with it.',
    {},
  ],
  503: ['Temporarily unavailable (`service_unavailable`).', RetryAfter],
  507: [
    'The store’s disk is full (`insufficient_storage`): the message names the cause (`disk full (SQLITE_FULL)`, `disk full (SQLSTATE 53100)`) and nothing was changed. Retry once space is freed; no restart is needed.',
    {},
  ],
};

const ADMIN_CODES = [...new Set(Object.values(ADMIN_ERROR_CODES).flat())];
/**
 * The admin document's `Error`: any code of the admin API (each status's in its `x-error-codes`);
 * a refused data import adds its report (docs/decisions.md 93).
 */
const AdminErrorBody = errorBody(ADMIN_CODES, {}, ImportRefusedInfo);

/** The documented answer of an admin error status (http/admin/index.ts adds 415 to every write). */
export const adminError = (status: AdminErrorStatus) =>
  errorResponse(AdminErrorBody, ADMIN_ERROR_CODES[status], {
    description: ERROR_DESCRIPTIONS[status][0],
    headers: { ...RequestIdHeader, ...ERROR_DESCRIPTIONS[status][1] },
    examples: [
      {
        data: null,
        error: { status, code: ADMIN_ERROR_CODES[status][0], message: 'A sentence for people.' },
        meta: { requestId: 'req_3f9k2m1x_1a' },
      },
    ],
  });

/**
 * The responses of an admin operation: its success (200, 201 for a
 * creation, 202 for work queued, 204 for a deletion) and the errors every
 * admin route can answer, plus `extra`.
 */
export function adminResponses(
  success: { status: 200 | 201 | 202 | 204; schema: TSchema },
  extra: AdminErrorStatus[] = [],
): Record<number, TSchema> {
  const out: Record<number, TSchema> = { [success.status]: success.schema };
  for (const s of [...new Set([400, 401, 403, 429, ...extra, 414, 500, 503] as AdminErrorStatus[])].sort())
    out[s] = adminError(s);
  return out;
}

export const AccountAnswer = (write: boolean, description: string) => ok(Account, description, write);
export const GrantAnswer = (write: boolean, description: string) => ok(Grant, description, write);
export const KeyAnswer = (write: boolean, description: string) => ok(Key, description, write);
export const AdminTokenAnswer = ok(AdminToken, 'The admin token (never its secret)', true);
export const CreatedKeyAnswer = ok(
  Type.Object({ key: Secret, apiKey: Key }, { component: 'CreatedKey' }),
  'The new key: the full key (`key`), shown this once, and what lists show of it (`apiKey`)',
  true,
);
export const RolledKeyAnswer = ok(
  Type.Object(
    {
      key: Secret,
      apiKey: Key,
      previous: Key,
      gracePeriodSeconds: Type.Integer({ minimum: 0 }),
    },
    { component: 'RolledKey' },
  ),
  'The new key of the same grant, label and scopes (its full key shown this once) and the old one (`previous`), ' +
    'which keeps working until its `expiresAt`, the end of the grace period',
  true,
);
export const AccountList = list(Account, 'A page of accounts, oldest first');
export const GrantList = list(Grant, 'A page of grants, oldest first');
export const KeyList = list(Key, 'A page of keys, oldest first, each with its account and plan');
export const AuditList = list(AuditRecord, 'A page of audit records, newest first');

/** The envelopes, for the admin schemas kept in their own module (admin-webhooks.ts). */
export const adminAnswer = ok;
export const adminList = list;
/** A 204: no body; a replay under the same Idempotency-Key says so as any write does. */
export const adminNoContent = (description: string) =>
  Type.Null({ description, headers: { ...RequestIdHeader, ...ReplayedHeader } });

export type AccountCreate = Static<typeof AccountCreate>;
export type AccountPatch = Static<typeof AccountPatch>;
export type GrantCreate = Static<typeof GrantCreate>;
export type GrantPatch = Static<typeof GrantPatch>;
export type KeyCreate = Static<typeof KeyCreate>;
export type KeyRoll = Static<typeof KeyRoll>;
export type AdminTokenPatch = Static<typeof AdminTokenPatch>;
export type AccountListQuery = Static<typeof AccountListQuery>;
export type GrantListQuery = Static<typeof GrantListQuery>;
export type KeyListQuery = Static<typeof KeyListQuery>;
export type AuditListQuery = Static<typeof AuditListQuery>;

// ---- Data imports ---------------------------------------------------------------

/** The media type of an .xlsx workbook. */
export const XLSX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The largest body a data import takes (docs/decisions.md 58): larger files go through `mds import`. */
export const ADMIN_MAX_IMPORT_BYTES = 50 * 1024 * 1024;

/** The body's media type names its format, as a file's extension does for `mds import`. */
export const IMPORT_MEDIA_TYPES = {
  'application/x-ndjson': 'ndjson',
  'application/json': 'json',
  'text/csv': 'csv',
  // The Bank of Algeria's workbook of official rates, as `mds import official-boa` (docs/decisions.md 140).
  [XLSX_MEDIA_TYPE]: 'xlsx',
} as const;

export const DataKindParams = Type.Object({
  kind: Type.Union([Type.Literal('assets'), Type.Literal('rates'), Type.Literal('gold')], {
    description: 'What the body holds: the asset directory, rates or gold references',
    examples: ['rates'],
  }),
});

const Flag = (description: string) =>
  Type.Union([Type.Literal('true'), Type.Literal('false')], {
    description,
    errorMessage: 'must be true or false',
  });

export const DataImportQuery = Type.Object(
  {
    dryRun: Type.Optional(
      Flag('Run the import in its transaction and roll it back: the report of a real import, nothing kept'),
    ),
    maxChange: Type.Optional(
      Type.String({
        pattern: '^(?:\\d{1,5})(?:\\.\\d{1,4})?$',
        description:
          'The largest change from the previous observation of a series, in percent, above 0 and at most ' +
          '10000 (default 20), as `mds import --max-change`',
        examples: ['35'],
        errorMessage: 'must be a percentage above 0 and at most 10000, e.g. 35',
      }),
    ),
    acceptOutliers: Type.Optional(
      Flag(
        'The body was reviewed: the guards’ findings are reported and let through, as `--accept-outliers`',
      ),
    ),
    reinstate: Type.Optional(
      Flag(
        'Records of retracted observations are written again and their retractions lifted, as `--reinstate`; ' +
          'without it they are left out and counted in `retracted`',
      ),
    ),
    timezone: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          'The IANA zone the body’s local times (without an offset) are in, as `mds import --timezone`; without it they are refused',
        examples: ['Africa/Algiers'],
        errorMessage: 'must be an IANA time zone name, e.g. Africa/Algiers',
      }),
    ),
    dateOrder: Type.Optional(
      Type.Union([Type.Literal('dmy'), Type.Literal('mdy')], {
        description:
          'How a date written with the day and the month before the year is read: `dmy` (28/11/2026 09:30) or `mdy`, as `mds import --date-order`; without it such dates are refused',
        errorMessage: 'must be dmy (day first) or mdy (month first)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type DataImportQuery = Static<typeof DataImportQuery>;

const Problem = Type.Object(
  { line: Type.Integer({ minimum: 1 }), message: Type.String() },
  { component: 'ImportProblem' },
);
const Pair = Type.Object({ buy: Type.Number(), sell: Type.Number() }, { component: 'BuySell' });

export const DataImportAnswer = ok(
  Type.Object(
    {
      importId: Type.String({
        description: 'The import’s record (`mds imports list`)',
        examples: ['imp_k3j5h7g9f1d2'],
      }),
      kind: Type.Union([Type.Literal('assets'), Type.Literal('rates'), Type.Literal('gold')]),
      dryRun: Type.Boolean(),
      received: Type.Integer({ minimum: 0 }),
      inserted: Type.Integer({ minimum: 0 }),
      updated: Type.Integer({ minimum: 0 }),
      unchanged: Type.Integer({ minimum: 0 }),
      retracted: Type.Integer({
        minimum: 0,
        description:
          'Records left out because their observation was retracted (`reinstate=true` writes them)',
      }),
      reinstated: Type.Integer({ minimum: 0, description: 'Retracted observations written again' }),
      revisions: Type.Array(
        Type.Object({
          code: Type.String({ description: 'The currency, or the purity for gold' }),
          source: Type.String({ description: 'The rate source, or `gold`' }),
          updatedAt: Timestamp,
          old: Pair,
          new: Pair,
        }),
        { description: 'The first 20 stored observations the import changed, with their previous values' },
      ),
      outliers: Type.Array(Problem, {
        description: 'What the guards found and `acceptOutliers=true` let through',
      }),
      ...ImportNotes,
      skippedSheets: Type.Optional(
        Type.Array(
          Type.Object(
            {
              sheet: Type.String({ examples: ['XAF - DZD'] }),
              reason: Type.String({ examples: ['XAF is not in the asset directory'] }),
            },
            { component: 'SkippedSheet' },
          ),
          {
            description:
              'A workbook’s sheets not read: named otherwise than `<currency> - DZD`, or of a currency not in the asset directory. Only for a workbook',
          },
        ),
      ),
      roundedRates: Type.Optional(
        Type.Integer({
          minimum: 1,
          description:
            'A workbook’s rates that held more than 6 decimal places (a computed cell), rounded half away from zero to 6. Only for a workbook, when any were',
        }),
      ),
    },
    { component: 'ImportReport' },
  ),
  'What the import wrote, or with `dryRun=true` would write; nothing was kept on a dry run',
  true,
);
