/**
 * The reporter API's schemas (/report/v1, docs/decisions.md 110): a quote as
 * a reporter sends it, one or a batch, a stored quote, the consensus of a
 * market, and the error answers. They validate requests (the admin
 * listener's validator, http/admin/validation.ts), type the handlers,
 * serialize the answers and generate /report/openapi.json.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Nullable, ReplayedHeader, RequestIdHeader, Text } from './admin.js';
import { Market } from './admin-reporters.js';
import { RequestMeta, Timestamp } from './common.js';
import { type ErrorCode, errorBody, errorResponse } from './errors.js';
import { Defaulted } from './query.js';

/** The most quotes one batch may hold: a phone's backlog of a day, with room. */
export const MAX_BATCH = 500;

const AMOUNT = '^\\s*(?:0|[1-9]\\d{0,9})(?:\\.\\d{1,6})?\\s*$';
const AMOUNT_SENTENCE =
  'must be an amount in DZD with at most 6 decimals, as a number or a string: 260.5 or "260.50"';
const Amount = (description: string, example: string) =>
  Type.Union([Type.String({ pattern: AMOUNT, maxLength: 30 }), Type.Number({ minimum: 0 })], {
    description,
    examples: [example],
    errorMessage: AMOUNT_SENTENCE,
  });

export const QuoteInput = Type.Object(
  {
    market: Market,
    buy: Amount('What the reporter buys one unit (or one gram of the purity) for, in DZD', '259.5'),
    sell: Amount('What the reporter sells it for, in DZD: at least `buy`', '261'),
    observedAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'When the quote was seen: at most 2 minutes ahead of the service’s clock, and within the consensus ' +
          'window (6 hours by default) in the past; the receipt when left out',
        examples: ['2026-11-28T09:15:00Z'],
        errorMessage: 'must be an ISO 8601 date-time such as 2026-11-28T09:15:00Z',
      }),
    ),
    place: Type.Optional(Text(100, 'Where the quote was seen, for the operator: a square, a street, a town')),
  },
  { additionalProperties: false, description: 'One quote' },
);

export const QuoteBatch = Type.Object(
  {
    quotes: Type.Array(QuoteInput, {
      minItems: 1,
      maxItems: MAX_BATCH,
      description: `1 to ${MAX_BATCH} quotes, stored together or not at all`,
      errorMessage: `must list 1 to ${MAX_BATCH} quotes`,
    }),
  },
  { component: 'QuoteBatch', additionalProperties: false, description: 'Several quotes, all or none' },
);

export const Quote = Type.Object(
  {
    id: Type.String({ examples: ['quo_k3j5h7g9f1d2s4a6'] }),
    market: Type.String({ examples: ['EUR'] }),
    buy: Type.Number({ examples: [259.5] }),
    sell: Type.Number({ examples: [261] }),
    observedAt: Timestamp,
    receivedAt: Timestamp,
    place: Nullable(Type.String({ examples: ['Square Port Said'] })),
  },
  { component: 'Quote', additionalProperties: false },
);

export const QuoteListQuery = Type.Object(
  {
    limit: Defaulted(
      Type.Integer({
        minimum: 1,
        maximum: 200,
        description: 'How many, newest first (1 to 200)',
        errorMessage: 'must be an integer from 1 to 200',
      }),
      50,
    ),
  },
  { additionalProperties: false },
);

const STATES = ['ok', 'low_quorum', 'disagreement'] as const;
const CONFIDENCES = ['high', 'medium', 'low'] as const;

export const MarketConsensus = Type.Object(
  {
    market: Type.String({ examples: ['EUR'] }),
    at: { ...Timestamp, description: 'The instant it was computed at: now' },
    state: Type.Union(
      STATES.map((s) => Type.Literal(s)),
      {
        description:
          '`ok`: enough organisations agree; `low_quorum`: too few organisations quoted in the window; ' +
          '`disagreement`: enough quoted, but too few remain once those far from the others are excluded',
      },
    ),
    buy: Nullable(Type.Number({ description: 'The consensus buy, 4 decimals; null unless `ok`' })),
    sell: Nullable(Type.Number({ description: 'The consensus sell, 4 decimals; null unless `ok`' })),
    organisations: Type.Integer({ minimum: 0, description: 'Organisations kept' }),
    reporters: Type.Integer({ minimum: 0, description: 'Quotes used, of the kept organisations' }),
    excluded: Type.Integer({ minimum: 0, description: 'Organisations excluded as too far from the others' }),
    dispersionPercent: Nullable(
      Type.Number({ description: '1.4826 × MAD of the kept mids over their median, in percent, 2 decimals' }),
    ),
    confidence: Nullable(
      Type.Union(
        CONFIDENCES.map((c) => Type.Literal(c)),
        { description: 'null unless `ok`' },
      ),
    ),
  },
  { component: 'MarketConsensus', additionalProperties: false },
);

export const ReporterSelf = Type.Object(
  {
    id: Type.String({ description: 'Your pseudonym', examples: ['rep_m2x8k1p4q7w3e9r5'] }),
    markets: Type.Array(Type.String({ examples: ['EUR'] }), { description: 'The markets you may quote' }),
  },
  { component: 'ReporterSelf', additionalProperties: false },
);

export const ReportIdempotencyKeyHeader = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7e]+$',
      description:
        'Makes a retry safe: the same key with the same request replays the first answer for 24 hours ' +
        '(`Idempotent-Replayed: true`) and stores nothing again; with another request it is a 409 ' +
        '`idempotency_key_reused`. 1 to 255 printable ASCII characters, per reporter, sent once.',
      examples: ['phone-7-2026-11-28T09:15:00Z'],
    }),
  ),
});

const answer = (data: TSchema, description: string, write = false) =>
  ({
    ...Type.Object({ data, meta: RequestMeta }, { additionalProperties: false }),
    description,
    headers: write ? { ...RequestIdHeader, ...ReplayedHeader } : RequestIdHeader,
  }) as TSchema;

export const QuoteAnswer = answer(Quote, 'The quote as stored', true);
export const QuoteBatchAnswer = answer(Type.Array(Quote), 'The quotes as stored, in the order sent', true);
export const QuoteListAnswer = answer(Type.Array(Quote), 'Your quotes, newest received first');
export const ConsensusAnswer = answer(
  Type.Array(MarketConsensus),
  'The consensus of each of your markets now, in the order of your markets',
);
export const SelfAnswer = answer(ReporterSelf, 'Who the token is');

/** The `error.code`s each status of the reporter API can carry. */
export const REPORT_ERROR_CODES = {
  400: ['invalid_request', 'invalid_parameter'],
  401: ['missing_reporter_token', 'invalid_reporter_token', 'expired_reporter_token'],
  403: ['reporter_inactive'],
  409: ['idempotency_key_reused', 'idempotency_key_in_progress'],
  413: ['payload_too_large'],
  414: ['uri_too_long'],
  415: ['unsupported_media_type'],
  429: ['rate_limited', 'too_many_requests'],
  500: ['internal_error'],
  503: ['service_unavailable'],
} as const satisfies Record<number, readonly ErrorCode[]>;
type ReportErrorStatus = keyof typeof REPORT_ERROR_CODES;

const RetryAfter = {
  'Retry-After': Type.Integer({ minimum: 1, description: 'Seconds to wait before retrying' }),
};

const DESCRIPTIONS: Record<ReportErrorStatus, [string, Record<string, unknown>]> = {
  400: [
    'The body (`invalid_request`) or a query parameter (`invalid_parameter`) is refused; `details` names each ' +
      'problem, a batch’s by its index (`quotes.3.sell`), with the value and the fix. Nothing was stored.',
    {},
  ],
  401: [
    'No reporter token (`missing_reporter_token`); one that is malformed, unknown, revoked, or an admin token ' +
      'or API key (`invalid_reporter_token`); a rolled token past its grace period (`expired_reporter_token`).',
    { 'WWW-Authenticate': Type.String({ examples: ['Bearer'] }) },
  ],
  403: ['The reporter is suspended or removed (`reporter_inactive`): ask the operator.', {}],
  409: [
    'An Idempotency-Key used with another request (`idempotency_key_reused`) or still being processed ' +
      '(`idempotency_key_in_progress`, with `Retry-After: 1`).',
    { 'Retry-After': { ...RetryAfter['Retry-After'], headerOptional: true } },
  ],
  413: ['The body is larger than 1 MB (`payload_too_large`): send fewer quotes at a time.', {}],
  414: ['The URL is too long (`uri_too_long`).', {}],
  415: [
    'The body is not JSON, or is compressed: a Content-Encoding other than `identity` (`unsupported_media_type`).',
    {},
  ],
  429: [
    'Too many requests from this reporter in the current minute (`rate_limited`), or too many failed ' +
      'authentications from this address (`too_many_requests`).',
    RetryAfter,
  ],
  500: [
    'An unexpected failure (`internal_error`). A POST with an Idempotency-Key can be retried with it.',
    {},
  ],
  503: ['Temporarily unavailable (`service_unavailable`).', RetryAfter],
};

const ReportErrorBody = errorBody([...new Set(Object.values(REPORT_ERROR_CODES).flat())]);

const reportError = (status: ReportErrorStatus) =>
  errorResponse(ReportErrorBody, REPORT_ERROR_CODES[status], {
    description: DESCRIPTIONS[status][0],
    headers: { ...RequestIdHeader, ...DESCRIPTIONS[status][1] },
    examples: [
      {
        data: null,
        error: { status, code: REPORT_ERROR_CODES[status][0], message: 'A sentence for people.' },
        meta: { requestId: 'req_3f9k2m1x_1a' },
      },
    ],
  });

/** The responses of a reporter operation: its success and the errors every one can answer. */
export function reportResponses(
  success: { status: 200 | 201; schema: TSchema },
  write: boolean,
): Record<number, TSchema> {
  const statuses: ReportErrorStatus[] = write
    ? [400, 401, 403, 409, 413, 414, 415, 429, 500, 503]
    : [400, 401, 403, 414, 429, 500, 503];
  return {
    [success.status]: success.schema,
    ...Object.fromEntries(statuses.map((s) => [s, reportError(s)])),
  };
}

export type QuoteInput = Static<typeof QuoteInput>;
export type QuoteBatch = Static<typeof QuoteBatch>;
export type QuoteListQuery = Static<typeof QuoteListQuery>;
