/**
 * Response documentation shared by every /v1 route: the quota headers and the
 * error envelope, spread into each route so the OpenAPI document states exactly
 * which statuses a route can answer (decisions §1–2).
 */
import { type TSchema, Type } from '@sinclair/typebox';
import { ERROR_CODES, ErrorBody, type ErrorCode, type ErrorStatus, errorResponse } from './errors.js';

const int = (description: string, minimum: number) => Type.Integer({ minimum, description });

/** The quota headers of decisions §1 and §5 (the specification's Limits section). */
const Quota = {
  'RateLimit-Limit': int('Requests allowed in the burst window', 1),
  'RateLimit-Remaining': int('Requests left in the window after this one', 0),
  'RateLimit-Reset': int('Seconds until the window resets', 1),
  'RateLimit-Policy': Type.String({ description: 'Policy, shaped `<limit>;w=60`', examples: ['120;w=60'] }),
  'X-Monthly-Quota-Limit': int('Monthly allowance', 1),
  'X-Monthly-Quota-Remaining': int('Requests left in the month after this one', 0),
  'X-Monthly-Quota-Reset': Type.String({
    format: 'date-time',
    description: 'When the monthly quota resets (UTC)',
  }),
};

const RequestIdHeader = {
  'X-Request-Id': Type.String({ description: 'Request identifier, equal to meta.requestId' }),
};

/** The headers of an answer that names a grant: its quota, and the request id. */
export const QuotaHeaders = { ...Quota, ...RequestIdHeader };

/**
 * `headers`, each sent only on an answer whose `error.code` is one of `codes`:
 * `sentWithCodes` is our annotation, which cleanDocument (openapi.ts) turns into
 * `required: false` and the extension `x-sent-with-error-codes` on the Header
 * Object, so that a reader, and the test harness, know exactly when it is sent.
 */
const sentWith = (headers: Record<string, TSchema>, codes: readonly ErrorCode[]) =>
  Object.fromEntries(
    Object.entries(headers).map(([name, schema]) => [
      name,
      {
        ...schema,
        description: `${schema.description} (sent with ${codes.map((c) => `\`${c}\``).join(', ')} only)`,
        sentWithCodes: [...codes],
      },
    ]),
  ) as Record<string, TSchema>;

const RetryAfter = { 'Retry-After': int('Seconds until a request can be accepted', 1) };

const error = (status: ErrorStatus, description: string, headers: Record<string, TSchema>, example: object) =>
  errorResponse(ErrorBody, ERROR_CODES[status], { description, headers, examples: [example] });

const example = (status: number, code: string, message: string, details?: object[]) => ({
  data: null,
  error: { status, code, message, ...(details ? { details } : {}) },
  meta: { requestId: 'req_3f9k2m1x_1a' },
});

export const ErrorResponses = {
  400: error(
    400,
    'One or more query parameters are invalid (`invalid_parameter`, `invalid_cursor`). Consumes no quota.',
    QuotaHeaders,
    example(400, 'invalid_parameter', 'One or more query parameters are invalid.', [
      { parameter: 'limit', message: 'must be an integer from 1 to 1000' },
    ]),
  ),
  401: error(
    401,
    'Key missing (`missing_api_key`), invalid (`invalid_api_key`), revoked (`revoked_api_key`) or expired (`expired_api_key`).',
    RequestIdHeader,
    example(401, 'missing_api_key', 'An API key is required: send Authorization: Bearer <key> or X-API-Key.'),
  ),
  403: error(
    403,
    'Grant inactive (`grant_inactive`) or key lacks the entitlement (`insufficient_scope`).',
    RequestIdHeader,
    example(403, 'insufficient_scope', 'The key is not entitled to this operation.', [
      { entitlement: 'rates:official:latest:read' },
    ]),
  ),
  404: error(
    404,
    'The requested resource was not found (`not_found`). Consumes one unit.',
    QuotaHeaders,
    example(404, 'not_found', 'The requested resource was not found.'),
  ),
  414: error(
    414,
    'The URL is longer than 4 096 characters (`uri_too_long`, decisions §10). Consumes no quota.',
    RequestIdHeader,
    example(414, 'uri_too_long', 'The request URL is too long.'),
  ),
  429: error(
    429,
    'Per-minute limit (`rate_limited`) or monthly quota (`quota_exceeded`) exhausted: with the quota headers. ' +
      'Also `too_many_requests` for an invalid key from an address that presented more than 30 invalid keys in ' +
      'the current minute (decisions 18a; a valid key is always served): that answer carries `Retry-After` but no ' +
      'quota headers, as no grant is known. Consumes no quota.',
    { ...sentWith(Quota, ['rate_limited', 'quota_exceeded']), ...RequestIdHeader, ...RetryAfter },
    example(429, 'rate_limited', 'Per-minute request limit exceeded.'),
  ),
  500: error(
    500,
    'An unexpected failure of the service (`internal_error`), on any operation; no quota headers. Consumes no ' +
      'quota: a unit taken for the request is given back. The operations only read, so the request can be sent again.',
    RequestIdHeader,
    example(500, 'internal_error', 'An unexpected error occurred.'),
  ),
  503: error(
    503,
    'Temporarily unavailable (`service_unavailable`).',
    { ...RequestIdHeader, ...RetryAfter },
    example(503, 'service_unavailable', 'The service is temporarily unavailable. Retry later.'),
  ),
} as const;

export type Status = keyof typeof ErrorResponses;

const CacheHeaders = {
  ETag: Type.String({ description: 'Weak validator of the representation; send it back in If-None-Match' }),
  'Cache-Control': Type.String({
    description: '`private, max-age=<seconds>`',
    examples: ['private, max-age=60'],
  }),
};

/**
 * A header sent on some answers only: `headerOptional` is our annotation,
 * made `required: false` on the Header Object by cleanDocument (openapi.ts).
 */
const LinkHeader = Type.String({
  description:
    'On a page with a next one (`meta.nextCursor` non-null): `<{path}?{the same query, cursor replaced}>; rel="next"` ' +
    '(RFC 8288, a relative reference). The deprecated alias adds `</v1/rates/history>; rel="successor-version"`.',
  examples: [
    '</v1/rates/history?currency=EUR&limit=250&cursor=mvk7e2o0.mwsi1hbz.mwq6g800~aveO7iyylean1gRzyFLrAQ>; rel="next"',
  ],
  headerOptional: true,
});

/**
 * The responses of a history endpoint: the page as JSON or, when `Accept`
 * ranks `text/csv` above `application/json`, as CSV (decisions §12), with the
 * Link header; the other statuses as `responses` gives them. The CSV media
 * type rides on the JSON schema as our annotation `csvMedia`, which
 * cleanDocument (openapi.ts) moves beside it: a response written with
 * `content` would keep @fastify/swagger from naming the shared record schemas.
 */
export function pageResponses(
  ok: TSchema,
  description: string,
  statuses: Status[],
  csvExample: string,
  csvColumns: string,
) {
  const out = responses(ok, description, statuses);
  out[200] = {
    ...out[200],
    headers: { ...QuotaHeaders, ...CacheHeaders, Link: LinkHeader },
    csvMedia: {
      schema: Type.String({
        description:
          'Sent when `Accept` ranks `text/csv` above `application/json` (`*/*` alone means JSON). A header row, ' +
          'then one record a line, `\\r\\n` line ends, RFC 4180 quoting; numbers and timestamps as in JSON; no ' +
          `meta (the request id is in X-Request-Id, the next page in Link). Columns: ${csvColumns}.`,
      }),
      example: csvExample,
    },
  } as TSchema;
  return out;
}

/**
 * The 200 response with its headers, plus the listed error statuses and the
 * 414 and 500 every route can answer. Data endpoints (`cacheable`) also document ETag,
 * Cache-Control and the 304.
 */
export function responses(ok: TSchema, description: string, statuses: Status[], cacheable = true) {
  const out: Record<number, TSchema> = {
    200: {
      ...ok,
      description,
      headers: cacheable ? { ...QuotaHeaders, ...CacheHeaders } : QuotaHeaders,
    } as TSchema,
  };
  if (cacheable) {
    out[304] = Type.Null({
      description: 'Not modified: the `If-None-Match` validator still matches. Consumes one unit; no body.',
      headers: { ...QuotaHeaders, ...CacheHeaders },
    });
  }
  for (const s of [...statuses, 414, 500] as const) out[s] = ErrorResponses[s];
  return out;
}
