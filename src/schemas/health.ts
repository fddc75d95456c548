/**
 * The answers of /healthz, /readyz and /status: the envelope, outside /v1,
 * without quota headers. `component` names a schema's component in the OpenAPI
 * document (docs/decisions.md 64).
 */
import { type TSchema, Type } from '@sinclair/typebox';
import { RequestId, Timestamp } from './common.js';
import { ErrorResponses } from './responses.js';

const RID = 'req_3f9k2m1x_1a';
const RequestIdHeader = {
  'X-Request-Id': Type.String({ description: 'Request identifier, equal to meta.requestId' }),
};

const HealthMeta = Type.Object(
  { requestId: RequestId },
  { component: 'HealthMeta', additionalProperties: false },
);

const answer = (data: TSchema, description: string, headers: Record<string, TSchema>, example: object) =>
  Type.Object(
    { data, meta: HealthMeta },
    {
      additionalProperties: false,
      description,
      headers,
      examples: [{ ...example, meta: { requestId: RID } }],
    },
  );

const readiness = (status: TSchema, component: string, reason?: TSchema) =>
  Type.Object(
    {
      status,
      store: Type.Boolean({ description: 'The store answered a ping' }),
      limiter: Type.Boolean({ description: 'The limiter (Redis, when configured) answered a ping' }),
      ...(reason ? { reason } : {}),
    },
    { component, additionalProperties: false },
  );

export const HealthResponses = {
  200: answer(
    Type.Object({ status: Type.Literal('ok') }, { component: 'Health', additionalProperties: false }),
    'The process is up and answering',
    RequestIdHeader,
    { data: { status: 'ok' } },
  ),
  414: ErrorResponses[414],
  500: ErrorResponses[500],
};

export const ReadinessResponses = {
  200: answer(
    readiness(Type.Literal('ready'), 'Readiness'),
    'Store and limiter reachable, not draining: send traffic here',
    RequestIdHeader,
    { data: { status: 'ready', store: true, limiter: true } },
  ),
  503: answer(
    readiness(
      Type.Union([Type.Literal('not_ready'), Type.Literal('draining')]),
      'Unreadiness',
      Type.Optional(
        Type.String({
          description:
            'Why, when the store answers but refuses writes: its disk is full (`disk full (SQLITE_FULL)`, ' +
            '`disk full (SQLSTATE 53100)`). Ready again within seconds of space being freed',
          examples: ['disk full (SQLITE_FULL): the store refuses writes until space is freed'],
        }),
      ),
    ),
    'The store or the limiter is unreachable, or the store’s disk is full (`not_ready`), or the instance ' +
      'is shutting down (`draining`): send traffic elsewhere',
    {
      ...RequestIdHeader,
      'Retry-After': Type.Integer({ minimum: 1, description: 'Seconds before asking again' }),
    },
    { data: { status: 'not_ready', store: false, limiter: true } },
  ),
  414: ErrorResponses[414],
  500: ErrorResponses[500],
};

/** One family's freshness on /status (docs/decisions.md 53). */
const FamilyFreshness = Type.Object(
  {
    updatedAt: Type.Union([Timestamp, Type.Null()], {
      description: 'The newest observation of the family this instance serves; null when it has none',
    }),
    ageSeconds: Type.Union([Type.Integer(), Type.Null()], {
      description:
        'Whole seconds since `updatedAt` by this instance’s clock, at the time of the request; null without an observation',
    }),
    thresholdSeconds: Type.Integer({
      minimum: 1,
      description: 'Age past which the family is stale (MDS_STALE_AFTER)',
    }),
    published: Type.Boolean({
      description:
        'The operator publishes this family (`MDS_PUBLISHED_FAMILIES`); when false it is not watched and ' +
        'never stale, and clients may leave it out',
    }),
    stale: Type.Boolean({
      description:
        'Published, and `ageSeconds` is past `thresholdSeconds` or the family has no observation at all',
    }),
  },
  { component: 'FamilyFreshness', additionalProperties: false },
);

/** A street market's consensus on /status (docs/decisions.md 107, 112). */
const ConsensusMarketStatus = Type.Object(
  {
    market: Type.String({
      description: 'A currency (its parallel rate) or a gold purity',
      examples: ['EUR'],
    }),
    state: Type.Union(
      [Type.Literal('ok'), Type.Literal('low_quorum'), Type.Literal('disagreement'), Type.Literal('stale')],
      {
        description:
          '`low_quorum`: fewer organisations quote than the quorum; `disagreement`: enough quote but exclusions ' +
          'leave fewer; `stale`: the quorum holds but the last publication is older than its family’s threshold ' +
          '(`parallel`, or `gold` for a purity); `ok` otherwise. The last published value stays served in every state',
      },
    ),
    lastPublishedAt: Type.Union([Timestamp, Type.Null()], {
      description: 'The last consensus published for the market; null before the first',
    }),
    ageSeconds: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Whole seconds since `lastPublishedAt`; null before the first',
    }),
  },
  { component: 'ConsensusMarketStatus', additionalProperties: false },
);

export const StatusResponses = {
  200: answer(
    Type.Object(
      {
        status: Type.Union([Type.Literal('ok'), Type.Literal('stale')], {
          description: '`stale` when any published family is stale (the consensus markets do not change it)',
        }),
        families: Type.Object(
          {
            parallel: FamilyFreshness,
            official: FamilyFreshness,
            transfer: FamilyFreshness,
            gold: FamilyFreshness,
          },
          {
            additionalProperties: false,
            description:
              'Each family’s freshness: `parallel` the parallel-market rates, `official` the Bank of Algeria ' +
              'official rates, `transfer` the money-transfer operators’ rates, `gold` the gold references',
          },
        ),
        consensus: Type.Array(ConsensusMarketStatus, {
          description:
            'Each market computed from reporters’ quotes (see /methodology.md), by market; empty when none is. ' +
            'Read from the store at most every few seconds',
        }),
      },
      { component: 'ServiceStatus', additionalProperties: false },
    ),
    'How old the newest data of each family is. 200 whether fresh or stale: alert on `status` or on the ' +
      'metrics, not on the HTTP status',
    {
      ...RequestIdHeader,
      'Cache-Control': Type.Literal('no-store', { description: 'Computed at each request: never cached' }),
    },
    {
      data: {
        status: 'ok',
        families: {
          parallel: {
            updatedAt: '2026-11-21T09:00:00.000Z',
            ageSeconds: 10800,
            thresholdSeconds: 129600,
            published: true,
            stale: false,
          },
          official: {
            updatedAt: '2026-11-21T10:00:00.000Z',
            ageSeconds: 7200,
            thresholdSeconds: 345600,
            published: true,
            stale: false,
          },
          // A family this operator does not publish (MDS_PUBLISHED_FAMILIES): no data, not stale.
          transfer: {
            updatedAt: null,
            ageSeconds: null,
            thresholdSeconds: 172800,
            published: false,
            stale: false,
          },
          gold: {
            updatedAt: '2026-11-21T09:30:00.000Z',
            ageSeconds: 9000,
            thresholdSeconds: 172800,
            published: true,
            stale: false,
          },
        },
        consensus: [
          { market: 'EUR', state: 'ok', lastPublishedAt: '2026-11-21T11:50:00.000Z', ageSeconds: 600 },
          {
            market: '21K',
            state: 'low_quorum',
            lastPublishedAt: '2026-11-21T08:00:00.000Z',
            ageSeconds: 14400,
          },
        ],
      },
    },
  ),
  414: ErrorResponses[414],
  500: ErrorResponses[500],
};
