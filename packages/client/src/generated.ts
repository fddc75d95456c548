/**
 * GENERATED from the OpenAPI document of Market Data Service (DZD) 1.0.0
 * by scripts/generate-client.ts (`npm run generate:client`, run by `npm run build`).
 * Do not edit: change the route schemas in src/schemas and regenerate.
 */

/** Version of the API document this file was generated from. */
export const API_VERSION = '1.0.0';

// ---- Component schemas -------------------------------------------------------

export interface Health {
  status: 'ok';
}

export interface HealthMeta {
  /** Same value as the X-Request-Id header */
  requestId: string;
}

/** The body of every non-2xx answer: `data` is null, `error` says why. */
export interface ErrorResponse {
  data: null;
  error: ErrorInfo;
  meta: RequestMeta;
}

export interface ErrorInfo {
  status: number;
  code: ErrorCode;
  message: string;
  details?: ErrorDetail[];
}

/** Machine-readable reason; the message is for people */
export type ErrorCode =
  | 'invalid_parameter'
  | 'invalid_cursor'
  | 'missing_api_key'
  | 'invalid_api_key'
  | 'revoked_api_key'
  | 'expired_api_key'
  | 'grant_inactive'
  | 'insufficient_scope'
  | 'not_found'
  | 'uri_too_long'
  | 'rate_limited'
  | 'quota_exceeded'
  | 'too_many_requests'
  | 'internal_error'
  | 'service_unavailable';

export interface ErrorDetail {
  parameter?: string;
  entitlement?: string;
  message?: string;
}

export interface RequestMeta {
  /** Same value as the X-Request-Id header */
  requestId: string;
}

export interface Readiness {
  status: 'ready';
  /** The store answered a ping */
  store: boolean;
  /** The limiter (Redis, when configured) answered a ping */
  limiter: boolean;
}

export interface Unreadiness {
  status: 'not_ready' | 'draining';
  /** The store answered a ping */
  store: boolean;
  /** The limiter (Redis, when configured) answered a ping */
  limiter: boolean;
  /**
   * Why, when the store answers but refuses writes: its disk is full (`disk full (SQLITE_FULL)`, `disk full (SQLSTATE 53100)`). Ready again within seconds of space being freed
   */
  reason?: string;
}

export interface ServiceStatus {
  /** `stale` when any published family is stale (the consensus markets do not change it) */
  status: 'ok' | 'stale';
  /**
   * Each family’s freshness: `parallel` the parallel-market rates, `official` the Bank of Algeria official rates, `transfer` the money-transfer operators’ rates, `gold` the gold references
   */
  families: {
    parallel: FamilyFreshness;
    official: FamilyFreshness;
    transfer: FamilyFreshness;
    gold: FamilyFreshness;
  };
  /**
   * Each market computed from reporters’ quotes (see /methodology.md), by market; empty when none is. Read from the store at most every few seconds
   */
  consensus: ConsensusMarketStatus[];
}

export interface FamilyFreshness {
  /**
   * The newest observation of the family this instance serves; null when it has none
   * Format: ISO 8601 date-time (UTC).
   */
  updatedAt: string | null;
  /**
   * Whole seconds since `updatedAt` by this instance’s clock, at the time of the request; null without an observation
   */
  ageSeconds: number | null;
  /** Age past which the family is stale (MDS_STALE_AFTER) */
  thresholdSeconds: number;
  /**
   * The operator publishes this family (`MDS_PUBLISHED_FAMILIES`); when false it is not watched and never stale, and clients may leave it out
   */
  published: boolean;
  /** Published, and `ageSeconds` is past `thresholdSeconds` or the family has no observation at all */
  stale: boolean;
}

export interface ConsensusMarketStatus {
  /** A currency (its parallel rate) or a gold purity */
  market: string;
  /**
   * `low_quorum`: fewer organisations quote than the quorum; `disagreement`: enough quote but exclusions leave fewer; `stale`: the quorum holds but the last publication is older than its family’s threshold (`parallel`, or `gold` for a purity); `ok` otherwise. The last published value stays served in every state
   */
  state: 'ok' | 'low_quorum' | 'disagreement' | 'stale';
  /**
   * The last consensus published for the market; null before the first
   * Format: ISO 8601 date-time (UTC).
   */
  lastPublishedAt: string | null;
  /** Whole seconds since `lastPublishedAt`; null before the first */
  ageSeconds: number | null;
}

export interface Asset {
  code: string;
  symbol: string;
  names: LocalizedNames;
  type: AssetType;
}

export interface LocalizedNames {
  en: string;
  fr: string;
  ar: string;
}

export type AssetType = 'currency' | 'metal' | 'crypto';

export interface AssetsMeta {
  /** Same value as the X-Request-Id header */
  requestId: string;
  count: number;
  type: 'currency' | 'metal' | 'crypto' | null;
}

export interface LatestRate {
  currency: string;
  names: LocalizedNames;
  type: AssetType;
  source: RateSource;
  quote: QuoteCurrency;
  buy: number;
  sell: number;
  /** Format: ISO 8601 date-time (UTC). */
  updatedAt: string;
  quality: Quality;
  change: Change;
}

/** Rate source family */
export type RateSource = 'parallel' | 'official' | 'transfer';

export type QuoteCurrency = 'DZD';

/** How the observation was made and how far its sources agree (additive, decisions 114) */
export interface Quality {
  /** `consensus`: published from reporters' quotes; `import`: entered or imported by the operator */
  method: 'consensus' | 'import';
  /** Organisations kept in the consensus; null for an import */
  organisations: number | null;
  /** Quotes used (one per reporter); null for an import */
  reporters: number | null;
  /** Organisations excluded as too far from the others; null for an import */
  excluded: number | null;
  /** 1.4826 × MAD of the kept organisations' mids / their median × 100, 2 decimals; null for an import */
  dispersionPercent: number | null;
  /**
   * `high`: at least 5 organisations and dispersion ≤ 0.5 %; `medium`: the quorum and dispersion ≤ 2 %; otherwise `low`; null for an import
   */
  confidence: 'high' | 'medium' | 'low' | null;
}

/**
 * Since the newest observation of the same series before the start of this one’s UTC day, at most 7 days before that start; null when there is none (decisions 122)
 */
export type Change = {
  /**
   * `updatedAt` of the observation compared with
   * Format: ISO 8601 date-time (UTC).
   */
  since: string;
  buy: ChangeSide;
  sell: ChangeSide;
} | null;

export interface ChangeSide {
  /** current − previous, exact decimal */
  amount: number;
  /** (current − previous) / previous × 100, 4 decimals, half away from zero */
  percent: number;
}

export interface RatesLatestMeta {
  /** Same value as the X-Request-Id header */
  requestId: string;
  count: number;
  source: RateSource;
  quote: QuoteCurrency;
  currencies: string[];
}

/** A record of the page: an observation, or with `interval` an interval */
export type RateHistoryEntry = RateHistoryRecord | RateInterval;

export interface RateHistoryRecord {
  currency: string;
  source: RateSource;
  quote: QuoteCurrency;
  buy: number;
  sell: number;
  /** Format: ISO 8601 date-time (UTC). */
  updatedAt: string;
  quality: Quality;
}

/** One interval of a rate series (`interval` given) */
export interface RateInterval {
  currency: string;
  quote: QuoteCurrency;
  source: RateSource;
  interval: IntervalName;
  /**
   * The interval's first day (UTC): the day, the Monday or the 1st, whatever the window's `from`
   * Format: `YYYY-MM-DD`.
   */
  start: string;
  buy: Ohlc;
  sell: Ohlc;
  /**
   * The first observation of the interval in the window
   * Format: ISO 8601 date-time (UTC).
   */
  firstUpdatedAt: string;
  /**
   * The last observation of the interval in the window
   * Format: ISO 8601 date-time (UTC).
   */
  lastUpdatedAt: string;
  /** Observations of the interval in the window */
  observations: number;
}

/** The interval asked for: `day`, `week` (from Monday, UTC) or `month` */
export type IntervalName = 'day' | 'week' | 'month';

export interface Ohlc {
  /** The first price of the interval in the window */
  open: number;
  /** The highest price */
  high: number;
  /** The lowest price */
  low: number;
  /** The last price of the interval in the window */
  close: number;
}

export interface RatesHistoryMeta {
  /** Same value as the X-Request-Id header */
  requestId: string;
  count: number;
  currency: string;
  source: RateSource;
  quote: QuoteCurrency;
  /** Format: ISO 8601 date-time (UTC). */
  from: string;
  /** Format: ISO 8601 date-time (UTC). */
  to: string;
  limit: number;
  nextCursor: string | null;
}

export interface Conversion {
  from: string;
  to: string;
  source: RateSource;
  /** The amount given, as a plain decimal without trailing zeros */
  amount: string;
  /** The amount in `to`, rounded once to 2 decimals half away from zero; exact to the cent up to 10^13 */
  result: number;
  /** The same result as a decimal string with exactly 2 decimals, exact at any size */
  resultDecimal: string;
  /** The rates applied, in order: `from` at buy (unless DZD), then `to` at sell (unless DZD); one or two */
  rates: ConversionRate[];
}

export interface ConversionRate {
  currency: string;
  quote: QuoteCurrency;
  /** `buy` for the currency given into dinars, `sell` for dinars into the currency */
  side: 'buy' | 'sell';
  /** DZD per unit of `currency` on that side, as /v1/rates/latest serves it */
  rate: number;
  /** Format: ISO 8601 date-time (UTC). */
  updatedAt: string;
}

export interface PremiumItem {
  currency: string;
  quote: QuoteCurrency;
  parallel: PremiumRate;
  official: PremiumRate;
  premium: Premium;
  change: PremiumChange;
}

export interface PremiumRate {
  buy: number;
  sell: number;
  /** Format: ISO 8601 date-time (UTC). */
  updatedAt: string;
}

export interface Premium {
  buy: PremiumDifference;
  sell: PremiumDifference;
}

export interface PremiumDifference {
  /** parallel − official, exact decimal */
  amount: number;
  /** (parallel − official) / official × 100, 4 decimals, half away from zero */
  percent: number;
}

/**
 * Since the premium of the previous day: its parallel side the one `change` of the parallel rate compares with, its official side the latest at or before the end of that day and at most 7 days older (as in the premium history); null without either (decisions 124)
 */
export type PremiumChange = {
  /**
   * `updatedAt` of the parallel observation of the previous day’s premium
   * Format: ISO 8601 date-time (UTC).
   */
  since: string;
  buy: PremiumChangeSide;
  sell: PremiumChangeSide;
} | null;

export interface PremiumChangeSide {
  /** This percent − the previous day’s, in percentage points, 4 decimals (exact) */
  percentPoints: number;
}

export interface MarketPremiumMeta {
  /** Same value as the X-Request-Id header */
  requestId: string;
  count: number;
  quote: QuoteCurrency;
  currencies: string[];
  missingCurrencies: string[];
}

/** A record of the page: an observation, or with `interval` an interval */
export type PremiumHistoryEntry = PremiumHistoryItem | PremiumInterval;

export interface PremiumHistoryItem {
  /**
   * The UTC day of the parallel observation
   * Format: `YYYY-MM-DD`.
   */
  date: string;
  currency: string;
  quote: QuoteCurrency;
  parallel: PremiumRate;
  official: PremiumRate;
  premium: Premium;
}

/**
 * One interval of the daily premium (`interval` given): open, high, low and close of the daily percents of buy and of sell, as the plain premium history lists them
 */
export interface PremiumInterval {
  currency: string;
  quote: QuoteCurrency;
  interval: IntervalName;
  /**
   * The interval's first day (UTC): the day, the Monday or the 1st, whatever the window's `from`
   * Format: `YYYY-MM-DD`.
   */
  start: string;
  buy: PercentOhlc;
  sell: PercentOhlc;
  /**
   * The first day of the interval with a daily premium in the window
   * Format: `YYYY-MM-DD`.
   */
  firstDate: string;
  /**
   * The last day of the interval with a daily premium in the window
   * Format: `YYYY-MM-DD`.
   */
  lastDate: string;
  /** Daily premiums of the interval in the window */
  days: number;
  /**
   * The parallel observation of the interval's first daily premium in the window
   * Format: ISO 8601 date-time (UTC).
   */
  firstUpdatedAt: string;
  /**
   * The parallel observation of the interval's last daily premium in the window
   * Format: ISO 8601 date-time (UTC).
   */
  lastUpdatedAt: string;
  /** Daily premiums of the interval in the window, as `days` */
  observations: number;
}

export interface PercentOhlc {
  /** The first daily premium percent of the interval in the window */
  open: number;
  /** The highest daily premium percent */
  high: number;
  /** The lowest daily premium percent */
  low: number;
  /** The last daily premium percent of the interval in the window */
  close: number;
}

export interface MarketPremiumHistoryMeta {
  /** Same value as the X-Request-Id header */
  requestId: string;
  count: number;
  currency: string;
  quote: QuoteCurrency;
  /** Format: ISO 8601 date-time (UTC). */
  from: string;
  /** Format: ISO 8601 date-time (UTC). */
  to: string;
  limit: number;
  nextCursor: string | null;
  summary: PremiumSummary;
}

/** Over the whole window, not only this page; null when the window has no item */
export type PremiumSummary = {
  /** Items in the whole window, every page together */
  days: number;
  buy: PremiumSideSummary;
  sell: PremiumSideSummary;
} | null;

export interface PremiumSideSummary {
  min: PremiumExtreme;
  max: PremiumExtreme;
  /** Mean of the daily percents, rounded half away from zero to 4 decimals */
  mean: number;
}

export interface PremiumExtreme {
  percent: number;
  /**
   * The newest day with this percent
   * Format: `YYYY-MM-DD`.
   */
  date: string;
}

export interface LatestGoldRecord {
  purity: GoldPurity;
  quote: QuoteCurrency;
  unit: GoldUnit;
  /** What a dealer pays per gram */
  buy: number;
  /** What a dealer charges per gram */
  sell: number;
  /** Format: ISO 8601 date-time (UTC). */
  updatedAt: string;
  quality: Quality;
  change: Change;
}

export type GoldPurity = '18K' | '21K' | '24K';

export type GoldUnit = 'gram';

export interface GoldLatestMeta {
  /** Same value as the X-Request-Id header */
  requestId: string;
  count: number;
  quote: QuoteCurrency;
  unit: GoldUnit;
}

/** A record of the page: an observation, or with `interval` an interval */
export type GoldHistoryEntry = GoldRecord | GoldInterval;

export interface GoldRecord {
  purity: GoldPurity;
  quote: QuoteCurrency;
  unit: GoldUnit;
  /** What a dealer pays per gram */
  buy: number;
  /** What a dealer charges per gram */
  sell: number;
  /** Format: ISO 8601 date-time (UTC). */
  updatedAt: string;
  quality: Quality;
}

/** One interval of a purity (`interval` given) */
export interface GoldInterval {
  purity: GoldPurity;
  quote: QuoteCurrency;
  unit: GoldUnit;
  interval: IntervalName;
  /**
   * The interval's first day (UTC): the day, the Monday or the 1st, whatever the window's `from`
   * Format: `YYYY-MM-DD`.
   */
  start: string;
  buy: Ohlc;
  sell: Ohlc;
  /**
   * The first observation of the interval in the window
   * Format: ISO 8601 date-time (UTC).
   */
  firstUpdatedAt: string;
  /**
   * The last observation of the interval in the window
   * Format: ISO 8601 date-time (UTC).
   */
  lastUpdatedAt: string;
  /** Observations of the interval in the window */
  observations: number;
}

export interface GoldHistoryMeta {
  /** Same value as the X-Request-Id header */
  requestId: string;
  count: number;
  quote: QuoteCurrency;
  unit: GoldUnit;
  /** Format: ISO 8601 date-time (UTC). */
  from: string;
  /** Format: ISO 8601 date-time (UTC). */
  to: string;
  limit: number;
  nextCursor: string | null;
}

export interface Identity {
  /** Billing contact data is omitted */
  account: {
    id: string;
  };
  grant: {
    id: string;
    provider: string;
    plan: string;
    status: 'active' | 'suspended' | 'cancelled';
    /** Canonical entitlements, sorted */
    scopes: string[];
    /** Format: ISO 8601 date-time (UTC). */
    validFrom: string;
    /** Format: ISO 8601 date-time (UTC). */
    validUntil: string;
    monthlyRequestLimit: number;
    requestsPerMinute: number;
  };
  key: {
    publicId: string;
    prefix: string;
    label: string;
    environment: 'live' | 'test';
    /** Canonical entitlements, sorted */
    scopes: string[];
    status: 'active' | 'revoked';
    /** Format: ISO 8601 date-time (UTC). */
    expiresAt: string | null;
    /** Format: ISO 8601 date-time (UTC). */
    lastUsedAt?: string | null;
  };
  usage: {
    /** Format: ISO 8601 date-time (UTC). */
    periodStart: string;
    /** Format: ISO 8601 date-time (UTC). */
    resetAt: string;
    requestsUsed: number;
    requestsRemaining: number;
    requestLimit: number;
    requestsPerMinute: number;
    minuteRemaining: number;
    /** Format: ISO 8601 date-time (UTC). */
    minuteResetAt: string;
  };
}

export interface DailyUsage {
  grantId: string;
  /**
   * A UTC day
   * Format: `YYYY-MM-DD`.
   */
  from: string;
  /**
   * A UTC day
   * Format: `YYYY-MM-DD`.
   */
  to: string;
  /** Requests counted in the whole window */
  requests: number;
  /** Every day of the window, oldest first; a day without requests has 0 and no keys */
  days: {
    /**
     * A UTC day
     * Format: `YYYY-MM-DD`.
     */
    day: string;
    /** The grant’s requests that day: the sum of its keys’ */
    requests: number;
    /** The keys that made requests that day, by public id */
    keys: {
      /** The key’s public id */
      publicId: string;
      /** This key’s requests that day */
      requests: number;
    }[];
  }[];
}

// ---- GET /healthz --------------------------------------------------------------

/** Query parameters of `GET /healthz`: Liveness */
export type HealthzQuery = Record<string, never>;

/** `data` of `GET /healthz`: Liveness */
export type HealthzData = Health;

/** `meta` of `GET /healthz`: Liveness */
export type HealthzMeta = HealthMeta;

/** The process is up and answering (`GET /healthz`: Liveness) */
export interface HealthzResponse {
  data: HealthzData;
  meta: HealthzMeta;
}

// ---- GET /readyz ---------------------------------------------------------------

/** Query parameters of `GET /readyz`: Readiness */
export type ReadyzQuery = Record<string, never>;

/** `data` of `GET /readyz`: Readiness */
export type ReadyzData = Readiness;

/** `meta` of `GET /readyz`: Readiness */
export type ReadyzMeta = HealthMeta;

/** Store and limiter reachable, not draining: send traffic here (`GET /readyz`: Readiness) */
export interface ReadyzResponse {
  data: ReadyzData;
  meta: ReadyzMeta;
}

// ---- GET /status ---------------------------------------------------------------

/** Query parameters of `GET /status`: Data freshness */
export type StatusQuery = Record<string, never>;

/** `data` of `GET /status`: Data freshness */
export type StatusData = ServiceStatus;

/** `meta` of `GET /status`: Data freshness */
export type StatusMeta = HealthMeta;

/**
 * How old the newest data of each family is. 200 whether fresh or stale: alert on `status` or on the metrics, not on the HTTP status (`GET /status`: Data freshness)
 */
export interface StatusResponse {
  data: StatusData;
  meta: StatusMeta;
}

// ---- GET /v1/assets ------------------------------------------------------------

/** Query parameters of `GET /v1/assets`: Asset directory */
export interface AssetsQuery {
  type?: 'currency' | 'metal' | 'crypto';
}

/** `data` of `GET /v1/assets`: Asset directory */
export type AssetsData = Asset[];

/** The asset directory (`GET /v1/assets`: Asset directory) */
export interface AssetsResponse {
  data: AssetsData;
  meta: AssetsMeta;
}

// ---- GET /v1/rates/latest ------------------------------------------------------

/** Query parameters of `GET /v1/rates/latest`: Latest rates */
export interface RatesLatestQuery {
  /** Comma-separated uppercase asset codes; duplicates are removed; at most 25 after de-duplication */
  currency?: string;
  /**
   * Rate source family
   * @default "parallel"
   */
  source?: 'parallel' | 'official' | 'transfer';
  /**
   * An ISO 8601 timestamp with a time zone, not in the future: the latest observation at or before it, and its change. Requires the history scope of the data instead of the latest one.
   */
  at?: string;
}

/** `data` of `GET /v1/rates/latest`: Latest rates */
export type RatesLatestData = LatestRate[];

/** Latest observations, in code order (`GET /v1/rates/latest`: Latest rates) */
export interface RatesLatestResponse {
  data: RatesLatestData;
  meta: RatesLatestMeta;
}

// ---- GET /v1/rates/history -----------------------------------------------------

/** Query parameters of `GET /v1/rates/history`: Rate history */
export interface RatesHistoryQuery {
  /** One uppercase asset code */
  currency: string;
  /**
   * Rate source family
   * @default "parallel"
   */
  source?: 'parallel' | 'official' | 'transfer';
  /**
   * Inclusive start date (UTC); default 30 days before `to`
   * Format: `YYYY-MM-DD`.
   */
  from?: string;
  /**
   * Inclusive end date (UTC); default today
   * Format: `YYYY-MM-DD`.
   */
  to?: string;
  /**
   * Page size
   * From 1 to 1000.
   * @default 250
   */
  limit?: number;
  /** Opaque continuation value from meta.nextCursor; reuse it only with the same filters */
  cursor?: string;
  /**
   * One item per UTC day, week (from Monday) or calendar month holding an observation of the window: open, high, low and close; the window may then span up to 3,660 days (decisions 128–133)
   */
  interval?: 'day' | 'week' | 'month';
}

/** `data` of `GET /v1/rates/history`: Rate history */
export type RatesHistoryData = RateHistoryEntry[];

/**
 * One page of observations (with `interval`, of intervals), newest first (`GET /v1/rates/history`: Rate history)
 */
export interface RatesHistoryResponse {
  data: RatesHistoryData;
  meta: RatesHistoryMeta;
}

// ---- GET /v1/rates/historical --------------------------------------------------

/**
 * Query parameters of `GET /v1/rates/historical`: Rate history (deprecated alias)
 * @deprecated
 */
export interface RatesHistoricalQuery {
  /** One uppercase asset code */
  currency: string;
  /**
   * Rate source family
   * @default "parallel"
   */
  source?: 'parallel' | 'official' | 'transfer';
  /**
   * Inclusive start date (UTC); default 30 days before `to`
   * Format: `YYYY-MM-DD`.
   */
  from?: string;
  /**
   * Inclusive end date (UTC); default today
   * Format: `YYYY-MM-DD`.
   */
  to?: string;
  /**
   * Page size
   * From 1 to 1000.
   * @default 250
   */
  limit?: number;
  /** Opaque continuation value from meta.nextCursor; reuse it only with the same filters */
  cursor?: string;
  /**
   * One item per UTC day, week (from Monday) or calendar month holding an observation of the window: open, high, low and close; the window may then span up to 3,660 days (decisions 128–133)
   */
  interval?: 'day' | 'week' | 'month';
}

/** `data` of `GET /v1/rates/historical`: Rate history (deprecated alias) */
export type RatesHistoricalData = RateHistoryEntry[];

/** `meta` of `GET /v1/rates/historical`: Rate history (deprecated alias) */
export type RatesHistoricalMeta = RatesHistoryMeta;

/**
 * One page of observations (with `interval`, of intervals), newest first (`GET /v1/rates/historical`: Rate history (deprecated alias))
 */
export interface RatesHistoricalResponse {
  data: RatesHistoricalData;
  meta: RatesHistoricalMeta;
}

// ---- GET /v1/convert -----------------------------------------------------------

/** Query parameters of `GET /v1/convert`: Convert an amount */
export interface ConvertQuery {
  /** The code of the amount given; `DZD` for dinars */
  from: string;
  /** The code of the result; `DZD` for dinars. Must differ from `from` */
  to: string;
  /** A plain decimal: more than 0, at most 1000000000, at most 8 decimals (`100`, `0.01`, `250.5`) */
  amount: string;
  /**
   * Rate source family
   * @default "parallel"
   */
  source?: 'parallel' | 'official' | 'transfer';
}

/** `data` of `GET /v1/convert`: Convert an amount */
export type ConvertData = Conversion;

/** `meta` of `GET /v1/convert`: Convert an amount */
export type ConvertMeta = RequestMeta;

/** The conversion and the rates it applied (`GET /v1/convert`: Convert an amount) */
export interface ConvertResponse {
  data: ConvertData;
  meta: ConvertMeta;
}

// ---- GET /v1/market/premium ----------------------------------------------------

/** Query parameters of `GET /v1/market/premium`: Parallel-market premium */
export interface MarketPremiumQuery {
  /**
   * Comma-separated uppercase asset codes; duplicates are removed; at most 25 after de-duplication
   * @default "EUR,USD,GBP,CAD"
   */
  currency?: string;
}

/** `data` of `GET /v1/market/premium`: Parallel-market premium */
export type MarketPremiumData = PremiumItem[];

/** Premium items in request order (`GET /v1/market/premium`: Parallel-market premium) */
export interface MarketPremiumResponse {
  data: MarketPremiumData;
  meta: MarketPremiumMeta;
}

// ---- GET /v1/market/premium/history --------------------------------------------

/** Query parameters of `GET /v1/market/premium/history`: Premium history */
export interface MarketPremiumHistoryQuery {
  /** One uppercase asset code */
  currency: string;
  /**
   * Inclusive start date (UTC); default 30 days before `to`
   * Format: `YYYY-MM-DD`.
   */
  from?: string;
  /**
   * Inclusive end date (UTC); default today
   * Format: `YYYY-MM-DD`.
   */
  to?: string;
  /**
   * Page size
   * From 1 to 1000.
   * @default 250
   */
  limit?: number;
  /** Opaque continuation value from meta.nextCursor; reuse it only with the same filters */
  cursor?: string;
  /**
   * One item per UTC day, week (from Monday) or calendar month holding an observation of the window: open, high, low and close; the window may then span up to 3,660 days (decisions 128–133)
   */
  interval?: 'day' | 'week' | 'month';
}

/** `data` of `GET /v1/market/premium/history`: Premium history */
export type MarketPremiumHistoryData = PremiumHistoryEntry[];

/**
 * One page of daily premiums (with `interval`, of intervals), newest first, with the summary of the whole window (`GET /v1/market/premium/history`: Premium history)
 */
export interface MarketPremiumHistoryResponse {
  data: MarketPremiumHistoryData;
  meta: MarketPremiumHistoryMeta;
}

// ---- GET /v1/gold/latest -------------------------------------------------------

/** Query parameters of `GET /v1/gold/latest`: Latest gold references */
export interface GoldLatestQuery {
  /**
   * An ISO 8601 timestamp with a time zone, not in the future: the latest observation at or before it, and its change. Requires the history scope of the data instead of the latest one.
   */
  at?: string;
}

/** `data` of `GET /v1/gold/latest`: Latest gold references */
export type GoldLatestData = LatestGoldRecord[];

/** Latest gold records (`GET /v1/gold/latest`: Latest gold references) */
export interface GoldLatestResponse {
  data: GoldLatestData;
  meta: GoldLatestMeta;
}

// ---- GET /v1/gold/history ------------------------------------------------------

/** Query parameters of `GET /v1/gold/history`: Gold reference history */
export interface GoldHistoryQuery {
  /**
   * Inclusive start date (UTC); default 30 days before `to`
   * Format: `YYYY-MM-DD`.
   */
  from?: string;
  /**
   * Inclusive end date (UTC); default today
   * Format: `YYYY-MM-DD`.
   */
  to?: string;
  /**
   * Page size
   * From 1 to 1000.
   * @default 250
   */
  limit?: number;
  /** Opaque continuation value from meta.nextCursor; reuse it only with the same filters */
  cursor?: string;
  /**
   * One item per UTC day, week (from Monday) or calendar month holding an observation of the window: open, high, low and close; the window may then span up to 3,660 days (decisions 128–133)
   */
  interval?: 'day' | 'week' | 'month';
}

/** `data` of `GET /v1/gold/history`: Gold reference history */
export type GoldHistoryData = GoldHistoryEntry[];

/**
 * One page of gold records (with `interval`, of intervals) (`GET /v1/gold/history`: Gold reference history)
 */
export interface GoldHistoryResponse {
  data: GoldHistoryData;
  meta: GoldHistoryMeta;
}

// ---- GET /v1/me ----------------------------------------------------------------

/** Query parameters of `GET /v1/me`: Account identity and usage */
export type MeQuery = Record<string, never>;

/** `data` of `GET /v1/me`: Account identity and usage */
export type MeData = Identity;

/** `meta` of `GET /v1/me`: Account identity and usage */
export type MeMeta = RequestMeta;

/** The caller (`GET /v1/me`: Account identity and usage) */
export interface MeResponse {
  data: MeData;
  meta: MeMeta;
}

// ---- GET /v1/usage/daily -------------------------------------------------------

/** Query parameters of `GET /v1/usage/daily`: Daily usage of the grant */
export interface UsageDailyQuery {
  /**
   * First UTC day (inclusive); default the first day of `to`’s month
   * Format: `YYYY-MM-DD`.
   */
  from?: string;
  /**
   * Last UTC day (inclusive); default today (UTC)
   * Format: `YYYY-MM-DD`.
   */
  to?: string;
}

/** `data` of `GET /v1/usage/daily`: Daily usage of the grant */
export type UsageDailyData = DailyUsage;

/** `meta` of `GET /v1/usage/daily`: Daily usage of the grant */
export type UsageDailyMeta = RequestMeta;

/** The grant’s daily usage (`GET /v1/usage/daily`: Daily usage of the grant) */
export interface UsageDailyResponse {
  data: UsageDailyData;
  meta: UsageDailyMeta;
}

// ---- Errors ------------------------------------------------------------------

// ---- Operations --------------------------------------------------------------

/** Every operation of the document, in document order. */
export const OPERATIONS = [
  {
    name: 'Healthz',
    operationId: 'getHealth',
    method: 'GET',
    path: '/healthz',
    query: [],
    requiredQuery: [],
    deprecated: false,
  },
  {
    name: 'Readyz',
    operationId: 'getReadiness',
    method: 'GET',
    path: '/readyz',
    query: [],
    requiredQuery: [],
    deprecated: false,
  },
  {
    name: 'Status',
    operationId: 'getStatus',
    method: 'GET',
    path: '/status',
    query: [],
    requiredQuery: [],
    deprecated: false,
  },
  {
    name: 'Assets',
    operationId: 'listAssets',
    method: 'GET',
    path: '/v1/assets',
    query: ['type'],
    requiredQuery: [],
    deprecated: false,
  },
  {
    name: 'RatesLatest',
    operationId: 'getLatestRates',
    method: 'GET',
    path: '/v1/rates/latest',
    query: ['currency', 'source', 'at'],
    requiredQuery: [],
    deprecated: false,
  },
  {
    name: 'RatesHistory',
    operationId: 'getRatesHistory',
    method: 'GET',
    path: '/v1/rates/history',
    query: ['currency', 'source', 'from', 'to', 'limit', 'cursor', 'interval'],
    requiredQuery: ['currency'],
    deprecated: false,
  },
  {
    name: 'RatesHistorical',
    operationId: 'getRatesHistoricalDeprecated',
    method: 'GET',
    path: '/v1/rates/historical',
    query: ['currency', 'source', 'from', 'to', 'limit', 'cursor', 'interval'],
    requiredQuery: ['currency'],
    deprecated: true,
  },
  {
    name: 'Convert',
    operationId: 'convertAmount',
    method: 'GET',
    path: '/v1/convert',
    query: ['from', 'to', 'amount', 'source'],
    requiredQuery: ['from', 'to', 'amount'],
    deprecated: false,
  },
  {
    name: 'MarketPremium',
    operationId: 'getMarketPremium',
    method: 'GET',
    path: '/v1/market/premium',
    query: ['currency'],
    requiredQuery: [],
    deprecated: false,
  },
  {
    name: 'MarketPremiumHistory',
    operationId: 'getPremiumHistory',
    method: 'GET',
    path: '/v1/market/premium/history',
    query: ['currency', 'from', 'to', 'limit', 'cursor', 'interval'],
    requiredQuery: ['currency'],
    deprecated: false,
  },
  {
    name: 'GoldLatest',
    operationId: 'getLatestGold',
    method: 'GET',
    path: '/v1/gold/latest',
    query: ['at'],
    requiredQuery: [],
    deprecated: false,
  },
  {
    name: 'GoldHistory',
    operationId: 'getGoldHistory',
    method: 'GET',
    path: '/v1/gold/history',
    query: ['from', 'to', 'limit', 'cursor', 'interval'],
    requiredQuery: [],
    deprecated: false,
  },
  {
    name: 'Me',
    operationId: 'getMe',
    method: 'GET',
    path: '/v1/me',
    query: [],
    requiredQuery: [],
    deprecated: false,
  },
  {
    name: 'UsageDaily',
    operationId: 'getDailyUsage',
    method: 'GET',
    path: '/v1/usage/daily',
    query: ['from', 'to'],
    requiredQuery: [],
    deprecated: false,
  },
] as const;

/** Query and response types of every operation, by path. */
export interface Operations {
  '/healthz': {
    method: 'GET';
    query: HealthzQuery;
    response: HealthzResponse;
  };
  '/readyz': {
    method: 'GET';
    query: ReadyzQuery;
    response: ReadyzResponse;
  };
  '/status': {
    method: 'GET';
    query: StatusQuery;
    response: StatusResponse;
  };
  '/v1/assets': {
    method: 'GET';
    query: AssetsQuery;
    response: AssetsResponse;
  };
  '/v1/rates/latest': {
    method: 'GET';
    query: RatesLatestQuery;
    response: RatesLatestResponse;
  };
  '/v1/rates/history': {
    method: 'GET';
    query: RatesHistoryQuery;
    response: RatesHistoryResponse;
  };
  '/v1/rates/historical': {
    method: 'GET';
    query: RatesHistoricalQuery;
    response: RatesHistoricalResponse;
  };
  '/v1/convert': {
    method: 'GET';
    query: ConvertQuery;
    response: ConvertResponse;
  };
  '/v1/market/premium': {
    method: 'GET';
    query: MarketPremiumQuery;
    response: MarketPremiumResponse;
  };
  '/v1/market/premium/history': {
    method: 'GET';
    query: MarketPremiumHistoryQuery;
    response: MarketPremiumHistoryResponse;
  };
  '/v1/gold/latest': {
    method: 'GET';
    query: GoldLatestQuery;
    response: GoldLatestResponse;
  };
  '/v1/gold/history': {
    method: 'GET';
    query: GoldHistoryQuery;
    response: GoldHistoryResponse;
  };
  '/v1/me': {
    method: 'GET';
    query: MeQuery;
    response: MeResponse;
  };
  '/v1/usage/daily': {
    method: 'GET';
    query: UsageDailyQuery;
    response: UsageDailyResponse;
  };
}

/** The path of every operation, by its operationId: the client names its methods after them. */
export interface OperationIds {
  getHealth: '/healthz';
  getReadiness: '/readyz';
  getStatus: '/status';
  listAssets: '/v1/assets';
  getLatestRates: '/v1/rates/latest';
  getRatesHistory: '/v1/rates/history';
  getRatesHistoricalDeprecated: '/v1/rates/historical';
  convertAmount: '/v1/convert';
  getMarketPremium: '/v1/market/premium';
  getPremiumHistory: '/v1/market/premium/history';
  getLatestGold: '/v1/gold/latest';
  getGoldHistory: '/v1/gold/history';
  getMe: '/v1/me';
  getDailyUsage: '/v1/usage/daily';
}

/** Every path of the document. */
export type OperationPath = keyof Operations;

/** Paths the document marks deprecated. */
export type DeprecatedPath = '/v1/rates/historical';
