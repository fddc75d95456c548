/**
 * Building blocks shared by every route schema. These TypeBox schemas are the
 * single source of truth: they validate queries (http/pipeline/query.ts), type the
 * handlers and generate the OpenAPI document (http/openapi.ts).
 *
 * `errorMessage` is our own annotation: the sentence a client reads in
 * `error.details[].message` when the parameter breaks its rule.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import { INTERVALS, MAX_INTERVAL_WINDOW_DAYS } from '../domain/intervals.js';
import { ASSET_TYPES, PURITIES, SOURCES } from '../domain/types.js';
import { Defaulted } from './query.js';

export const ASSET_CODE_PATTERN = '^[A-Z0-9]{2,10}$';
export const MAX_CODES = 25;
export const MAX_CURRENCY_LENGTH = 274;
export const MAX_SYMBOL_LENGTH = 16;
export const MAX_NAME_LENGTH = 200;

export const Timestamp = Type.String({ format: 'date-time', examples: ['2026-11-21T09:00:00.000Z'] });
export const Quote = Type.Literal('DZD', { component: 'QuoteCurrency' });

// ---- Entity fields ----------------------------------------------------------
// The rules of a stored asset, rate and gold observation: the responses declare
// them, and `mds import` validates its records with them (src/import/records.ts).
// `component` names the schema's component in the OpenAPI document, an
// annotation that only the document reads (docs/decisions.md 64,
// http/openapi-components.ts); a query parameter has none: the document
// writes parameters inline.

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
  {
    component: 'RateSource',
    description: 'Rate source family',
    errorMessage: `must be one of ${SOURCES.join(', ')}`,
  },
);
export const AssetTypeName = Type.Union(
  ASSET_TYPES.map((t) => Type.Literal(t)),
  { component: 'AssetType', errorMessage: `must be one of ${ASSET_TYPES.join(', ')}` },
);
export const GoldUnit = Type.Literal('gram', { component: 'GoldUnit' });
export const PurityName = Type.Union(
  PURITIES.map((p) => Type.Literal(p)),
  { component: 'GoldPurity', errorMessage: `must be one of ${PURITIES.join(', ')}` },
);
export const LocalizedNames = Type.Object(
  { en: Label(MAX_NAME_LENGTH), fr: Label(MAX_NAME_LENGTH), ar: Label(MAX_NAME_LENGTH) },
  {
    component: 'LocalizedNames',
    additionalProperties: false,
    errorMessage: 'must be an object with en, fr and ar',
  },
);

/**
 * A label as the asset directory takes it in (`mds import assets`, POST
 * /admin/v1/data/assets, both through src/import/records.ts): a Label that
 * does not begin with a character a spreadsheet reads as a formula (=, +, -,
 * @, tab, CR; docs/decisions.md 86). The responses declare the plain Label:
 * they describe what is stored, which may predate the rule.
 */
const EnteredLabel = (max: number) =>
  Type.Intersect([
    Label(max),
    Type.String({
      pattern: '^[^=+\\-@\\t\\r]',
      errorMessage:
        'must not begin with =, +, -, @, a tab or a carriage return, which a spreadsheet runs as a formula: ' +
        'remove or reword the first character',
    }),
  ]);
export const EnteredSymbol = EnteredLabel(MAX_SYMBOL_LENGTH);
export const EnteredNames = Type.Object(
  { en: EnteredLabel(MAX_NAME_LENGTH), fr: EnteredLabel(MAX_NAME_LENGTH), ar: EnteredLabel(MAX_NAME_LENGTH) },
  { additionalProperties: false, errorMessage: LocalizedNames.errorMessage },
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
  description: 'Page size',
  errorMessage: 'must be an integer from 1 to 1000',
});

export const CursorParam = Type.String({
  maxLength: 500,
  description: 'Opaque continuation value from meta.nextCursor; reuse it only with the same filters',
  errorMessage: 'must be a cursor returned in meta.nextCursor for the same filters',
});

export const IntervalParam = Type.Union(
  INTERVALS.map((i) => Type.Literal(i)),
  {
    description:
      'One item per UTC day, week (from Monday) or calendar month holding an observation of the window: open, ' +
      `high, low and close; the window may then span up to ${MAX_INTERVAL_WINDOW_DAYS.toLocaleString('en')} days (decisions 128–133)`,
    errorMessage: `must be one of ${INTERVALS.join(', ')}`,
  },
);

export const HistoryWindowQuery = {
  from: Type.Optional(DateParam('Inclusive start date (UTC); default 30 days before `to`')),
  to: Type.Optional(DateParam('Inclusive end date (UTC); default today')),
  limit: Defaulted(LimitParam, 250),
  cursor: Type.Optional(CursorParam),
};

// ---- Envelope ---------------------------------------------------------------

export const RequestId = Type.String({ description: 'Same value as the X-Request-Id header' });

/** The `meta` of an answer that has nothing else to say: its request id. */
export const RequestMeta = Type.Object({ requestId: RequestId }, { component: 'RequestMeta' });

export const Envelope = <D extends TSchema, M extends TSchema>(data: D, meta: M, example?: unknown) =>
  Type.Object({ data, meta }, { additionalProperties: false, ...(example ? { examples: [example] } : {}) });
