/**
 * The error vocabulary as schemas (decisions §1–2): every `error.code` the
 * service answers with, the codes each documented status can carry, and the
 * error envelope. The `ErrorCode` type is derived from the schema, so the
 * HTTP layer (http/errors.ts) cannot name a code the document does not know.
 */
import { type SchemaOptions, type Static, type TProperties, type TSchema, Type } from '@sinclair/typebox';
import type { Problem } from '../domain/problems.js';
import { RequestMeta } from './common.js';

/** A string enum, typed as the union of its values (TypeBox would write `anyOf` of `const`s). */
const StringEnum = <T extends string>(values: readonly T[], options: SchemaOptions = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

const CODE_DESCRIPTION = 'Machine-readable reason; the message is for people';

/** Every `error.code`, including those of answers outside the documented routes (404, 405, 408, 431). */
export const ErrorCode = StringEnum(
  [
    'route_not_found',
    'method_not_allowed',
    'missing_api_key',
    'invalid_api_key',
    'revoked_api_key',
    'expired_api_key',
    'grant_inactive',
    'invalid_parameter',
    'invalid_cursor',
    'insufficient_scope',
    'rate_limited',
    'quota_exceeded',
    'not_found',
    'service_unavailable',
    'internal_error',
    'uri_too_long',
    'headers_too_large',
    'request_timeout',
    'bad_request',
    'too_many_requests',
    // The admin API's (docs/decisions.md 58); documented in its own document (schemas/admin.ts).
    'missing_admin_token',
    'invalid_admin_token',
    'insufficient_admin_scope',
    'invalid_request',
    'conflict',
    'idempotency_key_reused',
    'idempotency_key_in_progress',
    'payload_too_large',
    'unsupported_media_type',
    'insufficient_storage',
    // The reporter API's (docs/decisions.md 110); documented in its own document (schemas/report.ts).
    'missing_reporter_token',
    'invalid_reporter_token',
    'expired_reporter_token',
    'reporter_inactive',
  ],
  { description: CODE_DESCRIPTION },
);
export type ErrorCode = Static<typeof ErrorCode>;

/**
 * The `error.code` each documented status can carry (decisions §1, §10 and 18a),
 * listed by the document as the response's `x-error-codes` (docs/decisions.md
 * 64), and together as the enum `ErrorCode` of the error envelope. A
 * 500 (`internal_error`, an unexpected failure) can answer any operation.
 * A 400 may name `invalid_cursor` on any route: a `cursor` a route does not
 * take is reported on `cursor` alone, as a bad cursor is.
 */
export const ERROR_CODES = {
  400: ['invalid_parameter', 'invalid_cursor'],
  401: ['missing_api_key', 'invalid_api_key', 'revoked_api_key', 'expired_api_key'],
  403: ['grant_inactive', 'insufficient_scope'],
  404: ['not_found'],
  414: ['uri_too_long'],
  429: ['rate_limited', 'quota_exceeded', 'too_many_requests'],
  500: ['internal_error'],
  503: ['service_unavailable'],
} as const satisfies Record<number, readonly ErrorCode[]>;

export type ErrorStatus = keyof typeof ERROR_CODES;
type DocumentedCode = (typeof ERROR_CODES)[ErrorStatus][number];

export const ErrorDetail = Type.Object(
  {
    parameter: Type.Optional(Type.String()),
    entitlement: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
  },
  { component: 'ErrorDetail' },
);

// The schema documents the problems domain rules report (domain/problems.ts): a
// member added to one and not the other fails to compile here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
true satisfies Same<Static<typeof ErrorDetail>, Problem>;

/**
 * The error envelope of a document, its `error.code` one of `codes` (every
 * code the document's operations list): the components `Error`, `ErrorInfo`,
 * `ErrorCode` and `ErrorDetail` (docs/decisions.md 64).
 */
export const errorBody = <C extends ErrorCode, P extends TProperties = Record<never, never>>(
  codes: readonly C[],
  options: SchemaOptions = {},
  /** Members a document's errors may add to `error` (the admin API's: a refused import's report). */
  info?: P,
) =>
  Type.Object(
    {
      data: Type.Null(),
      error: Type.Object(
        {
          status: Type.Integer(),
          code: StringEnum(codes, { component: 'ErrorCode', description: CODE_DESCRIPTION }),
          message: Type.String(),
          details: Type.Optional(Type.Array(ErrorDetail)),
          ...((info ?? {}) as P),
        },
        { component: 'ErrorInfo' },
      ),
      meta: RequestMeta,
    },
    { component: 'Error', ...options },
  );

/** Every non-2xx answer the document describes: any documented code. */
export const ErrorBody = errorBody([...new Set(Object.values(ERROR_CODES).flat())] as DocumentedCode[], {
  description: 'Every non-2xx answer',
});

/**
 * The response of status `status` with the envelope `body`: the answer's
 * `description`, `headers` and `examples`, and the codes it can carry as
 * `x-error-codes`, which the document writes on the Response Object
 * (http/openapi-components.ts); the body's schema is the envelope itself.
 */
export const errorResponse = <S extends TSchema>(
  body: S,
  codes: readonly ErrorCode[],
  response: { description: string; headers: Record<string, unknown>; examples: object[] },
) => ({ ...body, ...response, 'x-error-codes': [...codes] }) as S;
