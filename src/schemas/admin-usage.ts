/**
 * The admin API's usage reads (docs/decisions.md 62): a grant's daily usage
 * (the data of /v1/usage/daily, schemas/usage.ts) and the month's statement
 * of every grant, in JSON or, as `Accept` asks, in the public API's CSV
 * (http/csv.ts: header row, CRLF, RFC 4180 quoting, nested fields joined with `_`).
 */
import { type Static, Type } from '@sinclair/typebox';
import { RequestId, RequestMeta, Timestamp } from './common.js';
import { DailyUsage, DailyUsageQuery, dailyUsageExample } from './usage.js';

export { DailyUsageQuery };

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const RequestIdHeader = {
  'X-Request-Id': Type.String({ description: 'Request identifier, equal to meta.requestId' }),
};

export const StatementQuery = Type.Object(
  {
    month: Type.Optional(
      Type.String({
        pattern: '^\\d{4}-(0[1-9]|1[0-2])$',
        description: 'The calendar month (UTC), `YYYY-MM`; default the current one',
        examples: ['2026-11'],
        errorMessage: 'must be a calendar month as YYYY-MM, such as 2027-01',
      }),
    ),
  },
  { additionalProperties: false },
);
export type StatementQuery = Static<typeof StatementQuery>;

/** One grant's line; its fields, in this order, are the CSV's columns. */
export const StatementLine = Type.Object(
  {
    account: Type.Object({
      id: Type.String({ examples: ['acc_x3k9m2p7q1w8e5r4'] }),
      externalId: Nullable(Type.String({ description: 'The billing system’s customer id' })),
    }),
    grant: Type.Object({
      id: Type.String({ examples: ['grt_b7n4v1c8x2z5l9k3'] }),
      plan: Type.String(),
      provider: Type.String({ description: 'Who sold the grant' }),
      externalId: Nullable(Type.String({ description: 'The provider’s id for it (a subscription id)' })),
      status: Type.Union([Type.Literal('active'), Type.Literal('suspended'), Type.Literal('cancelled')], {
        description: 'The grant’s status now',
      }),
      cancelledAt: Type.Union([Timestamp, Type.Null()], {
        description: 'When the grant was cancelled; null unless it is',
      }),
    }),
    requestsUsed: Type.Integer({ minimum: 0, description: 'Requests counted in the month' }),
    monthlyRequestLimit: Type.Integer({ description: 'The grant’s monthly limit as it is now' }),
  },
  // The component of the admin OpenAPI document (docs/decisions.md 64).
  { component: 'StatementLine' },
);
export type StatementLine = Static<typeof StatementLine>;

/** The statement's example, in the document as JSON and as CSV (http/admin/usage.ts). */
export const statementExample = [
  {
    account: { id: 'acc_x3k9m2p7q1w8e5r4', externalId: 'cus_9s8d7f6g' },
    grant: {
      id: 'grt_b7n4v1c8x2z5l9k3',
      plan: 'pro',
      provider: 'stripe',
      externalId: 'sub_1a2b3c',
      status: 'active',
      cancelledAt: null,
    },
    requestsUsed: 48213,
    monthlyRequestLimit: 1000000,
  },
];

export const DailyUsageAnswer = {
  ...Type.Object({ data: DailyUsage, meta: RequestMeta }, { additionalProperties: false }),
  description: 'The grant’s requests per UTC day, with each key’s',
  headers: RequestIdHeader,
  examples: [{ data: dailyUsageExample, meta: { requestId: 'req_3f9k2m1x_1a' } }],
};

/**
 * The statement: JSON, or the CSV as the annotation `csvMedia` (moved beside
 * the JSON by cleanDocument, http/openapi.ts, as on the history pages).
 */
export const StatementAnswer = (csvHeader: string, csvExample: string) => ({
  ...Type.Object(
    {
      data: Type.Array(StatementLine),
      meta: Type.Object(
        {
          requestId: RequestId,
          month: Type.String({ description: 'The month of the statement, `YYYY-MM`', examples: ['2026-11'] }),
        },
        { component: 'StatementMeta' },
      ),
    },
    { additionalProperties: false },
  ),
  description: 'Every grant created before the month ended, with its requests in the month',
  headers: RequestIdHeader,
  examples: [{ data: statementExample, meta: { requestId: 'req_3f9k2m1x_1a', month: '2026-11' } }],
  csvMedia: {
    schema: Type.String({
      description:
        'Sent when `Accept` ranks `text/csv` above `application/json` (`*/*` alone means JSON): a header ' +
        'row, then one grant a line, `\\r\\n` line ends, RFC 4180 quoting, nested fields joined with `_`; ' +
        `no meta (the request id is in X-Request-Id). Columns: ${csvHeader}.`,
    }),
    example: csvExample,
  },
});
