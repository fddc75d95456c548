/**
 * Building blocks shared by every route schema. These TypeBox schemas are the
 * single source of truth: they validate queries (http/query.ts), type the
 * handlers and generate the OpenAPI document (http/openapi.ts).
 *
 * `errorMessage` is our own annotation: the sentence a client reads in
 * `error.details[].message` when the parameter breaks its rule.
 */
import { type SchemaOptions, type TSchema, Type } from '@sinclair/typebox';
import { ASSET_TYPES, PURITIES, SOURCES } from '../domain/types.js';
import type { ErrorCode } from '../http/errors.js';

export const ASSET_CODE_PATTERN = '^[A-Z0-9]{2,10}$';
export const MAX_CODES = 25;
export const MAX_CURRENCY_LENGTH = 274;
export const MAX_SYMBOL_LENGTH = 16;
export const MAX_NAME_LENGTH = 200;

export const Timestamp = Type.String({ format: 'date-time', examples: ['2026-11-21T09:00:00.000Z'] });
export const Quote = Type.Literal('DZD');

// ---- Entity fields ----------------------------------------------------------
// The rules of a stored asset, rate and gold observation: the responses declare
// them, and `mds import` validates its records with them (src/import/records.ts).

/** An asset code as stored: the directory's key and a rate's `currency`. */
export const AssetCode = Type.String({
  pattern: ASSET_CODE_PATTERN,
  errorMessage: 'must be an uppercase asset code (2-10 of A-Z, 0-9)',
});
/** Text a person reads: at least one non-blank character, at most `max` characters (code points). */
const Label = (max: number) =>
  Type.String({
    pattern: '\\S',
    maxLength: max,
    errorMessage: `must be a non-empty string of at most ${max} characters`,
  });
export const AssetSymbol = Label(MAX_SYMBOL_LENGTH);
export const SourceName = Type.Union(
  SOURCES.map((s) => Type.Literal(s)),
  { description: 'Rate source family', errorMessage: `must be one of ${SOURCES.join(', ')}` },
);
export const AssetTypeName = Type.Union(
  ASSET_TYPES.map((t) => Type.Literal(t)),
  { errorMessage: `must be one of ${ASSET_TYPES.join(', ')}` },
);
export const PurityName = Type.Union(
  PURITIES.map((p) => Type.Literal(p)),
  { errorMessage: `must be one of ${PURITIES.join(', ')}` },
);
export const LocalizedNames = Type.Object(
  { en: Label(MAX_NAME_LENGTH), fr: Label(MAX_NAME_LENGTH), ar: Label(MAX_NAME_LENGTH) },
  { additionalProperties: false, errorMessage: 'must be an object with en, fr and ar' },
);

// ---- Query parameters -------------------------------------------------------

export const CurrencyCodeParam = Type.String({
  pattern: ASSET_CODE_PATTERN,
  maxLength: MAX_CURRENCY_LENGTH,
  description: 'One uppercase asset code',
  examples: ['EUR'],
  errorMessage: 'must be one uppercase asset code (2 to 10 of A-Z, 0-9)',
});

export const CurrencyListParam = Type.String({
  pattern: `^[A-Z0-9]{2,10}(,[A-Z0-9]{2,10})*$`,
  maxLength: MAX_CURRENCY_LENGTH,
  description: `Comma-separated uppercase asset codes; duplicates are removed; at most ${MAX_CODES} after de-duplication`,
  examples: ['EUR,USD'],
  errorMessage: 'must be a comma-separated list of uppercase asset codes (2 to 10 of A-Z, 0-9)',
});

export const SourceParam = Type.Union(
  SOURCES.map((s) => Type.Literal(s)),
  {
    default: 'parallel',
    description: 'Rate source family',
    errorMessage: `must be one of ${SOURCES.join(', ')}`,
  },
);

export const DateParam = (description: string) =>
  Type.String({
    format: 'date',
    pattern: '^\\d{4}-\\d{2}-\\d{2}$',
    description,
    examples: ['2026-11-21'],
    errorMessage: 'must be a real calendar date as YYYY-MM-DD',
  });

export const LimitParam = Type.Integer({
  minimum: 1,
  maximum: 1000,
  default: 250,
  description: 'Page size',
  errorMessage: 'must be an integer from 1 to 1000',
});

export const CursorParam = Type.String({
  maxLength: 500,
  description: 'Opaque continuation value from meta.nextCursor; reuse it only with the same filters',
  errorMessage: 'must be a cursor returned in meta.nextCursor for the same filters',
});

export const HistoryWindowQuery = {
  from: Type.Optional(DateParam('Inclusive start date (UTC); default 30 days before `to`')),
  to: Type.Optional(DateParam('Inclusive end date (UTC); default today')),
  limit: Type.Optional(LimitParam),
  cursor: Type.Optional(CursorParam),
};

// ---- Envelope ---------------------------------------------------------------

export const RequestId = Type.String({ description: 'Same value as the X-Request-Id header' });

export const ErrorDetail = Type.Object({
  parameter: Type.Optional(Type.String()),
  entitlement: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});

/**
 * The `error.code` each documented status can carry (decisions §1, §10 and 18a), so
 * that the document, and the client generated from it, list them as enums.
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
  503: ['service_unavailable'],
} as const satisfies Record<number, readonly ErrorCode[]>;

export type ErrorStatus = keyof typeof ERROR_CODES;
type DocumentedCode = (typeof ERROR_CODES)[ErrorStatus][number];

/** A string enum, typed as the union of its values (TypeBox would write `anyOf` of `const`s). */
const StringEnum = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

/** The error envelope, its `error.code` limited to `codes`. */
export const errorBody = <C extends string>(codes: readonly C[], options: SchemaOptions = {}) =>
  Type.Object(
    {
      data: Type.Null(),
      error: Type.Object({
        status: Type.Integer(),
        code: StringEnum(codes, 'Machine-readable reason; the message is for people'),
        message: Type.String(),
        details: Type.Optional(Type.Array(ErrorDetail)),
      }),
      meta: Type.Object({ requestId: RequestId }),
    },
    options,
  );

/** Every non-2xx answer the document describes: any documented code. */
export const ErrorBody = errorBody([...new Set(Object.values(ERROR_CODES).flat())] as DocumentedCode[], {
  description: 'Every non-2xx answer',
});

export const Envelope = <D extends TSchema, M extends TSchema>(data: D, meta: M, example?: unknown) =>
  Type.Object({ data, meta }, { additionalProperties: false, ...(example ? { examples: [example] } : {}) });
