/**
 * Request and response schemas of the market-data endpoints. `component` names
 * a schema's component in the OpenAPI document (docs/decisions.md 64): the
 * records, the parts they share and the `meta` of each operation, named as
 * the generated client names its types.
 *
 * Longer than 300 lines because it is one list: every record, part and meta
 * of the market endpoints, one schema each.
 */
import { Type } from '@sinclair/typebox';
import {
  AssetCode,
  AssetSymbol,
  AssetTypeName,
  CurrencyCodeParam,
  CurrencyListParam,
  Envelope,
  GoldUnit,
  HistoryWindowQuery,
  IntervalParam,
  LocalizedNames,
  PurityName,
  Quote,
  RequestId,
  SourceName,
  SourceParam,
  Timestamp,
} from './common.js';
import { examples } from './examples.js';
import { documentedPage, GoldInterval, intervalPage, PremiumInterval, RateInterval } from './intervals.js';
import { Defaulted } from './query.js';

// ---- /v1/assets --------------------------------------------------------------

export const AssetsQuery = Type.Object(
  {
    type: Type.Optional(
      Type.Union(
        ['currency', 'metal', 'crypto'].map((t) => Type.Literal(t)),
        { errorMessage: 'must be one of currency, metal, crypto' },
      ),
    ),
  },
  { additionalProperties: false },
);

export const Asset = Type.Object(
  { code: AssetCode, symbol: AssetSymbol, names: LocalizedNames, type: AssetTypeName },
  { component: 'Asset' },
);

export const AssetsResponse = Envelope(
  Type.Array(Asset),
  Type.Object(
    {
      requestId: RequestId,
      count: Type.Integer(),
      type: Type.Union([AssetTypeName, Type.Null()]),
    },
    { component: 'AssetsMeta' },
  ),
  examples.assets,
);

// ---- quality (decisions 114) ---------------------------------------------------

const count = (description: string) =>
  Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description });

const Confidence = Type.Union([Type.Literal('high'), Type.Literal('medium'), Type.Literal('low')]);

/**
 * How an observation was made: a published consensus of street reporters
 * (decisions 107), or an import, whose members are null. Additive: a
 * client that reads only buy and sell is unaffected.
 */
export const Quality = Type.Object(
  {
    method: Type.Union([Type.Literal('consensus'), Type.Literal('import')], {
      description:
        "`consensus`: published from reporters' quotes; `import`: entered or imported by the operator",
    }),
    organisations: count('Organisations kept in the consensus; null for an import'),
    reporters: count('Quotes used (one per reporter); null for an import'),
    excluded: count('Organisations excluded as too far from the others; null for an import'),
    dispersionPercent: Type.Union([Type.Number(), Type.Null()], {
      description:
        "1.4826 × MAD of the kept organisations' mids / their median × 100, 2 decimals; null for an import",
    }),
    confidence: Type.Union([Confidence, Type.Null()], {
      description:
        '`high`: at least 5 organisations and dispersion ≤ 0.5 %; `medium`: the quorum and dispersion ≤ 2 %; ' +
        'otherwise `low`; null for an import',
    }),
  },
  {
    component: 'Quality',
    description: 'How the observation was made and how far its sources agree (additive, decisions 114)',
    examples: [
      {
        method: 'consensus',
        organisations: 7,
        reporters: 9,
        excluded: 1,
        dispersionPercent: 0.31,
        confidence: 'high',
      },
      {
        method: 'import',
        organisations: null,
        reporters: null,
        excluded: null,
        dispersionPercent: null,
        confidence: null,
      },
    ],
  },
);

// ---- change since the previous day (decisions 122) ----------------------------

const ChangeSide = Type.Object(
  {
    amount: Type.Number({ description: 'current − previous, exact decimal' }),
    percent: Type.Number({
      description: '(current − previous) / previous × 100, 4 decimals, half away from zero',
    }),
  },
  { component: 'ChangeSide' },
);

/**
 * The change of a latest record since the previous day: against the newest
 * observation of the same series before the start of the record's UTC day,
 * at most 7 days before that start; null without one (decisions 122).
 */
export const Change = Type.Union(
  [
    Type.Object({
      since: Type.String({
        format: 'date-time',
        description: '`updatedAt` of the observation compared with',
        examples: ['2026-11-20T15:00:00.000Z'],
      }),
      buy: ChangeSide,
      sell: ChangeSide,
    }),
    Type.Null(),
  ],
  {
    component: 'Change',
    description:
      'Since the newest observation of the same series before the start of this one’s UTC day, at most 7 days ' +
      'before that start; null when there is none (decisions 122)',
  },
);

/** `at`: the latest records as of an instant (decisions 123). */
const AtParam = Type.String({
  // No `format`: the refinement reads it (http/pipeline/as-of.ts) and names the value in its problem.
  maxLength: 40,
  description:
    'An ISO 8601 timestamp with a time zone, not in the future: the latest observation at or before it, and its ' +
    'change. Requires the history scope of the data instead of the latest one.',
  examples: ['2026-11-20T18:00:00Z'],
  errorMessage: 'must be an ISO 8601 timestamp with a time zone, e.g. 2026-11-21T09:00:00.000Z',
});

// ---- /v1/rates/latest --------------------------------------------------------

export const RatesLatestQuery = Type.Object(
  {
    currency: Type.Optional(CurrencyListParam),
    source: Defaulted(SourceParam, 'parallel'),
    at: Type.Optional(AtParam),
  },
  { additionalProperties: false },
);

export const LatestRate = Type.Object(
  {
    currency: AssetCode,
    names: LocalizedNames,
    type: AssetTypeName,
    source: SourceName,
    quote: Quote,
    buy: Type.Number(),
    sell: Type.Number(),
    updatedAt: Timestamp,
    quality: Quality,
    change: Change,
  },
  { component: 'LatestRate' },
);

export const RatesLatestResponse = Envelope(
  Type.Array(LatestRate),
  Type.Object(
    {
      requestId: RequestId,
      count: Type.Integer(),
      source: SourceName,
      quote: Quote,
      currencies: Type.Array(Type.String()),
    },
    { component: 'RatesLatestMeta' },
  ),
  examples.ratesLatest,
);

// ---- /v1/rates/history -------------------------------------------------------

export const RatesHistoryQuery = Type.Object(
  {
    currency: CurrencyCodeParam,
    source: Defaulted(SourceParam, 'parallel'),
    ...HistoryWindowQuery,
    interval: Type.Optional(IntervalParam),
  },
  { additionalProperties: false },
);

export const HistoryRate = Type.Object(
  {
    currency: AssetCode,
    source: SourceName,
    quote: Quote,
    buy: Type.Number(),
    sell: Type.Number(),
    updatedAt: Timestamp,
    quality: Quality,
  },
  { component: 'RateHistoryRecord' },
);

/** The window members of every history page's meta, after its own (the order the bytes have, decisions §12). */
const PageWindow = {
  from: Timestamp,
  to: Timestamp,
  limit: Type.Integer(),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
};

/** The page without `interval`, as its serializer writes it. */
export const RatesHistoryPage = Envelope(
  Type.Array(HistoryRate),
  Type.Object(
    {
      requestId: RequestId,
      count: Type.Integer(),
      currency: Type.String(),
      source: SourceName,
      quote: Quote,
      ...PageWindow,
    },
    { component: 'RatesHistoryMeta' },
  ),
  examples.ratesHistory,
);
export const RatesIntervalsPage = intervalPage(RatesHistoryPage, RateInterval);
export const RatesHistoryResponse = documentedPage(RatesHistoryPage, RateInterval, 'RateHistoryEntry');

// ---- /v1/market/premium ------------------------------------------------------

export const PremiumQuery = Type.Object(
  {
    currency: Defaulted(
      Type.String({ ...CurrencyListParam, examples: ['EUR,USD,GBP,CAD'] }),
      'EUR,USD,GBP,CAD',
    ),
  },
  { additionalProperties: false },
);

const SidePoint = Type.Object(
  { buy: Type.Number(), sell: Type.Number(), updatedAt: Timestamp },
  { component: 'PremiumRate' },
);
const Difference = Type.Object(
  {
    amount: Type.Number({ description: 'parallel − official, exact decimal' }),
    percent: Type.Number({
      description: '(parallel − official) / official × 100, 4 decimals, half away from zero',
    }),
  },
  { component: 'PremiumDifference' },
);
const Premium = Type.Object({ buy: Difference, sell: Difference }, { component: 'Premium' });

const PointsChange = Type.Object(
  {
    percentPoints: Type.Number({
      description: 'This percent − the previous day’s, in percentage points, 4 decimals (exact)',
    }),
  },
  { component: 'PremiumChangeSide' },
);

/** The premium's change since the previous day, in percentage points (decisions 124). */
export const PremiumChange = Type.Union(
  [
    Type.Object({
      since: Type.String({
        format: 'date-time',
        description: '`updatedAt` of the parallel observation of the previous day’s premium',
        examples: ['2026-11-20T15:00:00.000Z'],
      }),
      buy: PointsChange,
      sell: PointsChange,
    }),
    Type.Null(),
  ],
  {
    component: 'PremiumChange',
    description:
      'Since the premium of the previous day: its parallel side the one `change` of the parallel rate compares ' +
      'with, its official side the latest at or before the end of that day and at most 7 days older (as in the ' +
      'premium history); null without either (decisions 124)',
  },
);

export const PremiumItem = Type.Object(
  {
    currency: Type.String(),
    quote: Quote,
    parallel: SidePoint,
    official: SidePoint,
    premium: Premium,
    change: PremiumChange,
  },
  { component: 'PremiumItem' },
);

export const PremiumResponse = Envelope(
  Type.Array(PremiumItem),
  Type.Object(
    {
      requestId: RequestId,
      count: Type.Integer(),
      quote: Quote,
      currencies: Type.Array(Type.String()),
      missingCurrencies: Type.Array(Type.String()),
    },
    { component: 'MarketPremiumMeta' },
  ),
  examples.premium,
);

// ---- /v1/market/premium/history ----------------------------------------------

export const PremiumHistoryQuery = Type.Object(
  { currency: CurrencyCodeParam, ...HistoryWindowQuery, interval: Type.Optional(IntervalParam) },
  { additionalProperties: false },
);

const Day = (description: string) => Type.String({ format: 'date', description, examples: ['2026-11-21'] });

export const PremiumHistoryItem = Type.Object(
  {
    date: Day('The UTC day of the parallel observation'),
    currency: Type.String(),
    quote: Quote,
    parallel: SidePoint,
    official: SidePoint,
    premium: Premium,
  },
  { component: 'PremiumHistoryItem' },
);

const Extreme = Type.Object(
  { percent: Type.Number(), date: Day('The newest day with this percent') },
  { component: 'PremiumExtreme' },
);
const SideSummary = Type.Object(
  {
    min: Extreme,
    max: Extreme,
    mean: Type.Number({
      description: 'Mean of the daily percents, rounded half away from zero to 4 decimals',
    }),
  },
  { component: 'PremiumSideSummary' },
);

export const PremiumSummary = Type.Union(
  [
    Type.Object({
      days: Type.Integer({ minimum: 1, description: 'Items in the whole window, every page together' }),
      buy: SideSummary,
      sell: SideSummary,
    }),
    Type.Null(),
  ],
  {
    component: 'PremiumSummary',
    description: 'Over the whole window, not only this page; null when the window has no item',
  },
);

/** The page without `interval`, as its serializer writes it. */
export const PremiumHistoryPage = Envelope(
  Type.Array(PremiumHistoryItem),
  Type.Object(
    {
      requestId: RequestId,
      count: Type.Integer(),
      currency: Type.String(),
      quote: Quote,
      ...PageWindow,
      summary: PremiumSummary,
    },
    { component: 'MarketPremiumHistoryMeta' },
  ),
  examples.premiumHistory,
);
export const PremiumIntervalsPage = intervalPage(PremiumHistoryPage, PremiumInterval);
export const PremiumHistoryResponse = documentedPage(
  PremiumHistoryPage,
  PremiumInterval,
  'PremiumHistoryEntry',
);

// ---- /v1/gold ----------------------------------------------------------------

export const GoldRecord = Type.Object(
  {
    purity: PurityName,
    quote: Quote,
    unit: GoldUnit,
    buy: Type.Number({ description: 'What a dealer pays per gram' }),
    sell: Type.Number({ description: 'What a dealer charges per gram' }),
    updatedAt: Timestamp,
    quality: Quality,
  },
  { component: 'GoldRecord' },
);

export const LatestGoldRecord = Type.Object(
  { ...GoldRecord.properties, change: Change },
  { component: 'LatestGoldRecord' },
);

/** Open: the operation took no parameter before `at` and still ignores any other (§6, decisions 123). */
export const GoldLatestQuery = Type.Object({ at: Type.Optional(AtParam) }, { additionalProperties: true });

export const GoldLatestResponse = Envelope(
  Type.Array(LatestGoldRecord),
  Type.Object(
    { requestId: RequestId, count: Type.Integer(), quote: Quote, unit: GoldUnit },
    { component: 'GoldLatestMeta' },
  ),
  examples.goldLatest,
);

export const GoldHistoryQuery = Type.Object(
  { ...HistoryWindowQuery, interval: Type.Optional(IntervalParam) },
  { additionalProperties: false },
);

/** The page without `interval`, as its serializer writes it. */
export const GoldHistoryPage = Envelope(
  Type.Array(GoldRecord),
  Type.Object(
    {
      requestId: RequestId,
      count: Type.Integer(),
      quote: Quote,
      unit: GoldUnit,
      ...PageWindow,
    },
    { component: 'GoldHistoryMeta' },
  ),
  examples.goldHistory,
);
export const GoldIntervalsPage = intervalPage(GoldHistoryPage, GoldInterval);
export const GoldHistoryResponse = documentedPage(GoldHistoryPage, GoldInterval, 'GoldHistoryEntry');
