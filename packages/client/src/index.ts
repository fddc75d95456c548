/**
 * A typed client for the Market Data Service (DZD). The request and response
 * types come from generated.ts, which is generated from the service's OpenAPI
 * document at build time; this file is the hand-written runtime around them:
 * one method per endpoint, named after its operationId in the document, cursor
 * iterators, CSV pages, retries and typed errors.
 *
 * No runtime dependency: it uses the global `fetch` of Node.js ≥ 20 and of
 * browsers, or the one passed in the options.
 */
import type {
  AssetsQuery,
  AssetsResponse,
  ConvertQuery,
  ConvertResponse,
  DeprecatedPath,
  ErrorResponse,
  GoldHistoryMeta,
  GoldHistoryQuery,
  GoldHistoryResponse,
  GoldInterval,
  GoldLatestQuery,
  GoldLatestResponse,
  GoldRecord,
  IntervalName,
  MarketPremiumHistoryMeta,
  MarketPremiumHistoryQuery,
  MarketPremiumHistoryResponse,
  MarketPremiumQuery,
  MarketPremiumResponse,
  MeResponse,
  OperationIds,
  Operations,
  PremiumHistoryItem,
  PremiumInterval,
  RateHistoryRecord,
  RateInterval,
  RatesHistoryMeta,
  RatesHistoryQuery,
  RatesHistoryResponse,
  RatesLatestQuery,
  RatesLatestResponse,
  UsageDailyQuery,
  UsageDailyResponse,
} from './generated.js';
import {
  csvOf,
  type ErrorInit,
  type ErrorKind,
  envelopeOf,
  MdsError,
  queryString,
  sendWithRetries,
  type TransportOptions,
  transportOf,
} from './transport.js';

export * from './generated.js';
export { MdsError } from './transport.js';

/** Every `error.code` the API documents (the client adds `unexpected_response`). */
export type ErrorCode = ErrorResponse['error']['code'];

/** One entry of `error.details`. */
export type ErrorDetail = NonNullable<ErrorResponse['error']['details']>[number];

/** @deprecated The document's name for it is `RateHistoryRecord` (docs/decisions.md 64). */
export type HistoryRate = RateHistoryRecord;

/**
 * A history page whose records are all of one kind: the plain records, or with
 * `interval` the intervals (docs/decisions.md 128).
 */
export interface PageOf<R, M> {
  data: R[];
  meta: M;
}

/** A history query with `interval`: its page lists intervals. */
export type IntervalQuery<Q> = Q & { interval: IntervalName };
/** A history query without `interval`: its page lists observations. */
export type PlainQuery<Q> = Q & { interval?: undefined };

/**
 * `query` for a helper that yields observations: one with `interval` would
 * yield intervals under the wrong type, so it is refused, naming the helper
 * that pages them.
 */
function withoutInterval<Q extends { interval?: IntervalName }>(query: Q, helper: string): PlainQuery<Q> {
  if (query.interval !== undefined)
    throw new TypeError(`this helper yields observations; page \`interval\` with ${helper}`);
  return query as PlainQuery<Q>;
}

export interface MdsClientOptions extends TransportOptions {
  /** Where the API is served, e.g. `https://api.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** The API key, sent as `Authorization: Bearer <key>`. Never logged, never exposed on the client. */
  apiKey: string;
  /** Retries after a 429 or a 503 before the error is thrown. @default 3 */
  maxRetries?: number;
}

export interface RequestOptions {
  /** Aborts the request, and any wait before a retry. */
  signal?: AbortSignal;
}

/** Options of the history methods: `csv: true` returns the page as CSV text instead of `{ data, meta }`. */
export interface HistoryOptions extends RequestOptions {
  /**
   * Sends `Accept: text/csv` and returns the page as the API's CSV text: a header row, then one
   * record a line (CRLF line ends, RFC 4180 quoting), nested fields joined with `_`
   * (`premium_sell_percent`). It holds the same records as the JSON page of the same query; it has
   * no `meta`, so no next cursor: ask for `limit: 1000` (a window is at most 366 days), or page
   * with the JSON method. @default false
   */
  csv?: boolean;
}

/** `csv: true`: the method returns the CSV text. */
export interface CsvOptions extends HistoryOptions {
  csv: true;
}

/** `csv` absent or false: the method returns the JSON `{ data, meta }`. */
export interface JsonOptions extends HistoryOptions {
  csv?: false;
}

/**
 * Every non-2xx answer (and any answer that is not the API's JSON), as a typed
 * error: `status`, `code` (e.g. `invalid_api_key`, `rate_limited`), `details`,
 * `requestId` and `retryAfter` (transport.ts, `MdsError`). The message of an
 * `insufficient_scope` names the entitlement its `details` say is missing.
 */
export class MdsApiError extends MdsError<ErrorDetail> {
  override readonly name = 'MdsApiError';

  constructor(init: ErrorInit<ErrorDetail>) {
    super({ ...init, message: withMissingEntitlement(init) });
  }
}

/**
 * The message of an `insufficient_scope`, followed by the entitlement its
 * `details` name; any other message as it is. The answer names the entitlement
 * only, not a plan that gives it, so neither does the message.
 */
function withMissingEntitlement(init: ErrorInit<ErrorDetail>): string {
  if (init.code !== 'insufficient_scope') return init.message;
  const missing = (init.details ?? []).flatMap((detail) =>
    typeof detail?.entitlement === 'string' ? [detail.entitlement] : [],
  );
  if (missing.length === 0) return init.message;
  const [names, scope] =
    missing.length === 1 ? ['entitlement', 'that scope'] : ['entitlements', 'those scopes'];
  return `${init.message} Missing ${names}: ${missing.join(', ')}; a key with ${scope}, on a plan that gives it, is needed.`;
}

const API: ErrorKind<MdsApiError> = { Error: MdsApiError, api: 'API' };

/** The operationIds of the /v1 API the client exposes: all but the deprecated alias. */
type ExposedId = {
  [K in keyof OperationIds]: OperationIds[K] extends DeprecatedPath
    ? never
    : OperationIds[K] extends `/v1/${string}`
      ? K
      : never;
}[keyof OperationIds];

/** The path of each method; fails to compile when an operationId is added, renamed or moved. */
const ENDPOINTS = {
  listAssets: '/v1/assets',
  getLatestRates: '/v1/rates/latest',
  getRatesHistory: '/v1/rates/history',
  convertAmount: '/v1/convert',
  getMarketPremium: '/v1/market/premium',
  getPremiumHistory: '/v1/market/premium/history',
  getLatestGold: '/v1/gold/latest',
  getGoldHistory: '/v1/gold/history',
  getMe: '/v1/me',
  getDailyUsage: '/v1/usage/daily',
} as const satisfies { [K in ExposedId]: OperationIds[K] };

/** A method named after each exposed operationId, answering that operation's response. */
type OperationMethods = {
  [K in ExposedId]: (...args: never[]) => Promise<Operations[OperationIds[K]]['response']>;
};

/** A 429 or a 503 is retried: every /v1 request is a GET. */
const retryable = (error: MdsApiError) => error.status === 429 || error.status === 503;

export class MdsClient implements OperationMethods {
  readonly baseUrl: string;
  readonly maxRetries: number;
  readonly maxRetryDelayMs: number;
  // Private fields: the key never shows in console.log, JSON.stringify or errors.
  readonly #apiKey: string;
  readonly #fetch: typeof fetch;

  constructor(options: MdsClientOptions) {
    const t = transportOf('MdsClient', options, { name: 'apiKey', value: options.apiKey });
    this.baseUrl = t.baseUrl;
    this.#apiKey = t.credential;
    this.#fetch = t.fetch;
    this.maxRetries = t.maxRetries;
    this.maxRetryDelayMs = t.maxRetryDelayMs;
  }

  /** `GET /v1/assets` (`listAssets`): the asset directory. Requires `assets:read`. */
  listAssets(query: AssetsQuery = {}, options?: RequestOptions): Promise<AssetsResponse> {
    return this.get(ENDPOINTS.listAssets, query, options);
  }

  /**
   * `GET /v1/rates/latest` (`getLatestRates`): the newest rate per asset for one source, with its
   * `change` since the previous day. Requires `rates:<source>:latest:read`; with `at` (an ISO
   * timestamp), the newest at or before it, which requires `rates:<source>:history:read` instead.
   */
  getLatestRates(query: RatesLatestQuery = {}, options?: RequestOptions): Promise<RatesLatestResponse> {
    return this.get(ENDPOINTS.getLatestRates, query, options);
  }

  /**
   * `GET /v1/rates/history` (`getRatesHistory`): one page of an asset's history, newest first;
   * with `{ csv: true }`, that page as CSV text. Requires `rates:<source>:history:read`.
   */
  getRatesHistory(query: RatesHistoryQuery, options: CsvOptions): Promise<string>;
  getRatesHistory(
    query: IntervalQuery<RatesHistoryQuery>,
    options?: JsonOptions,
  ): Promise<PageOf<RateInterval, RatesHistoryMeta>>;
  getRatesHistory(
    query: PlainQuery<RatesHistoryQuery>,
    options?: JsonOptions,
  ): Promise<PageOf<RateHistoryRecord, RatesHistoryMeta>>;
  getRatesHistory(query: RatesHistoryQuery, options?: JsonOptions): Promise<RatesHistoryResponse>;
  getRatesHistory(query: RatesHistoryQuery, options?: HistoryOptions): Promise<RatesHistoryResponse | string>;
  getRatesHistory(
    query: RatesHistoryQuery,
    options?: HistoryOptions,
  ): Promise<RatesHistoryResponse | string> {
    return this.history(ENDPOINTS.getRatesHistory, query, options);
  }

  /**
   * `GET /v1/convert` (`convertAmount`): `amount` of `from` in `to`, from the latest rates of
   * `source`: a currency into dinars at buy, dinars into a currency at sell, two currencies through
   * the dinar; rounded once to the cent. Pass `amount` as a decimal string (`'100'`, `'0.01'`).
   * Requires `rates:<source>:latest:read`.
   */
  convertAmount(query: ConvertQuery, options?: RequestOptions): Promise<ConvertResponse> {
    return this.get(ENDPOINTS.convertAmount, query, options);
  }

  /** `GET /v1/market/premium` (`getMarketPremium`): the premium of the parallel rate over the official one. Requires `market:premium:read`. */
  getMarketPremium(query: MarketPremiumQuery = {}, options?: RequestOptions): Promise<MarketPremiumResponse> {
    return this.get(ENDPOINTS.getMarketPremium, query, options);
  }

  /**
   * `GET /v1/market/premium/history` (`getPremiumHistory`): one page of daily premiums, newest
   * first, with `meta.summary` over the whole window (days, min and max percent with their day,
   * mean); with `{ csv: true }`, that page as CSV text. Requires `market:premium:history:read`.
   */
  getPremiumHistory(query: MarketPremiumHistoryQuery, options: CsvOptions): Promise<string>;
  getPremiumHistory(
    query: IntervalQuery<MarketPremiumHistoryQuery>,
    options?: JsonOptions,
  ): Promise<PageOf<PremiumInterval, MarketPremiumHistoryMeta>>;
  getPremiumHistory(
    query: PlainQuery<MarketPremiumHistoryQuery>,
    options?: JsonOptions,
  ): Promise<PageOf<PremiumHistoryItem, MarketPremiumHistoryMeta>>;
  getPremiumHistory(
    query: MarketPremiumHistoryQuery,
    options?: JsonOptions,
  ): Promise<MarketPremiumHistoryResponse>;
  getPremiumHistory(
    query: MarketPremiumHistoryQuery,
    options?: HistoryOptions,
  ): Promise<MarketPremiumHistoryResponse | string>;
  getPremiumHistory(
    query: MarketPremiumHistoryQuery,
    options?: HistoryOptions,
  ): Promise<MarketPremiumHistoryResponse | string> {
    return this.history(ENDPOINTS.getPremiumHistory, query, options);
  }

  /**
   * `GET /v1/gold/latest` (`getLatestGold`): the latest per-gram gold references, with their
   * `change` since the previous day. Requires `gold:latest:read`; with `{ at }` (an ISO timestamp),
   * the newest at or before it, which requires `gold:history:read` instead.
   */
  getLatestGold(options: RequestOptions & GoldLatestQuery = {}): Promise<GoldLatestResponse> {
    const { at, ...request } = options;
    return this.get(ENDPOINTS.getLatestGold, at === undefined ? {} : { at }, request);
  }

  /**
   * `GET /v1/gold/history` (`getGoldHistory`): one page of gold references, newest first; with
   * `{ csv: true }`, that page as CSV text. Requires `gold:history:read`.
   */
  getGoldHistory(query: GoldHistoryQuery | undefined, options: CsvOptions): Promise<string>;
  getGoldHistory(
    query: IntervalQuery<GoldHistoryQuery>,
    options?: JsonOptions,
  ): Promise<PageOf<GoldInterval, GoldHistoryMeta>>;
  getGoldHistory(
    query?: PlainQuery<GoldHistoryQuery>,
    options?: JsonOptions,
  ): Promise<PageOf<GoldRecord, GoldHistoryMeta>>;
  getGoldHistory(query?: GoldHistoryQuery, options?: JsonOptions): Promise<GoldHistoryResponse>;
  getGoldHistory(query?: GoldHistoryQuery, options?: HistoryOptions): Promise<GoldHistoryResponse | string>;
  getGoldHistory(
    query: GoldHistoryQuery = {},
    options?: HistoryOptions,
  ): Promise<GoldHistoryResponse | string> {
    return this.history(ENDPOINTS.getGoldHistory, query, options);
  }

  /** `GET /v1/me` (`getMe`): the key, its grant and this month's usage. Requires `usage:read`. */
  getMe(options?: RequestOptions): Promise<MeResponse> {
    return this.get(ENDPOINTS.getMe, {}, options);
  }

  /**
   * `GET /v1/usage/daily` (`getDailyUsage`): the grant's requests per UTC day, its total and each
   * key's, `from` to `to` (at most 366 days; by default the current month so far), this request
   * included. Requires `usage:read`.
   */
  getDailyUsage(query: UsageDailyQuery = {}, options?: RequestOptions): Promise<UsageDailyResponse> {
    return this.get(ENDPOINTS.getDailyUsage, query, options);
  }

  // The names of client 1.0, before the document had operationIds; kept so code written for it still runs.

  /** @deprecated Use {@link MdsClient.listAssets}. */
  assets(query: AssetsQuery = {}, options?: RequestOptions): Promise<AssetsResponse> {
    return this.listAssets(query, options);
  }

  /** @deprecated Use {@link MdsClient.getLatestRates}. */
  latestRates(query: RatesLatestQuery = {}, options?: RequestOptions): Promise<RatesLatestResponse> {
    return this.getLatestRates(query, options);
  }

  /** @deprecated Use {@link MdsClient.getRatesHistory}. */
  rateHistory(query: RatesHistoryQuery, options?: RequestOptions): Promise<RatesHistoryResponse> {
    return this.getRatesHistory(query, json(options));
  }

  /** @deprecated Use {@link MdsClient.getMarketPremium}. */
  premium(query: MarketPremiumQuery = {}, options?: RequestOptions): Promise<MarketPremiumResponse> {
    return this.getMarketPremium(query, options);
  }

  /** @deprecated Use {@link MdsClient.getLatestGold}. */
  goldLatest(options?: RequestOptions): Promise<GoldLatestResponse> {
    return this.getLatestGold(options);
  }

  /** @deprecated Use {@link MdsClient.getGoldHistory}. */
  goldHistory(query: GoldHistoryQuery = {}, options?: RequestOptions): Promise<GoldHistoryResponse> {
    return this.getGoldHistory(query, json(options));
  }

  /** @deprecated Use {@link MdsClient.getMe}. */
  me(options?: RequestOptions): Promise<MeResponse> {
    return this.getMe(options);
  }

  /**
   * Every record of a rate history window, newest first, one record at a time:
   * fetches page after page (`limit` records each) following `meta.nextCursor`
   * with the same filters. Pass `cursor` to resume where a page left off.
   */
  async *paginateRateHistory(
    query: RatesHistoryQuery,
    options?: RequestOptions,
  ): AsyncGenerator<RateHistoryRecord, void, undefined> {
    const plain = withoutInterval(query, 'paginateRateIntervals');
    yield* this.paginate((cursor) => this.getRatesHistory({ ...plain, cursor }, json(options)), query.cursor);
  }

  /**
   * Every interval of a rate series over a window (`interval`: `day`, `week`, `month`), newest
   * first, one at a time, page after page (see paginateRateHistory). A window may span 3,660 days.
   */
  async *paginateRateIntervals(
    query: IntervalQuery<RatesHistoryQuery>,
    options?: RequestOptions,
  ): AsyncGenerator<RateInterval, void, undefined> {
    yield* this.paginate((cursor) => this.getRatesHistory({ ...query, cursor }, json(options)), query.cursor);
  }

  /** Every gold record of a window, newest first, one record at a time (see paginateRateHistory). */
  async *paginateGoldHistory(
    query: GoldHistoryQuery = {},
    options?: RequestOptions,
  ): AsyncGenerator<GoldRecord, void, undefined> {
    const plain = withoutInterval(query, 'paginateGoldIntervals');
    yield* this.paginate((cursor) => this.getGoldHistory({ ...plain, cursor }, json(options)), query.cursor);
  }

  /** Every interval of each purity over a window, newest first, purities in order (see paginateRateIntervals). */
  async *paginateGoldIntervals(
    query: IntervalQuery<GoldHistoryQuery>,
    options?: RequestOptions,
  ): AsyncGenerator<GoldInterval, void, undefined> {
    yield* this.paginate((cursor) => this.getGoldHistory({ ...query, cursor }, json(options)), query.cursor);
  }

  /**
   * Every daily premium of a window, newest first, one item at a time (see paginateRateHistory).
   * The window's summary is the same on every page: read it from `getPremiumHistory` (`meta.summary`).
   */
  async *paginatePremiumHistory(
    query: MarketPremiumHistoryQuery,
    options?: RequestOptions,
  ): AsyncGenerator<PremiumHistoryItem, void, undefined> {
    const plain = withoutInterval(query, 'paginatePremiumIntervals');
    yield* this.paginate(
      (cursor) => this.getPremiumHistory({ ...plain, cursor }, json(options)),
      query.cursor,
    );
  }

  /** Every interval of the daily premium over a window, newest first (see paginateRateIntervals). */
  async *paginatePremiumIntervals(
    query: IntervalQuery<MarketPremiumHistoryQuery>,
    options?: RequestOptions,
  ): AsyncGenerator<PremiumInterval, void, undefined> {
    yield* this.paginate(
      (cursor) => this.getPremiumHistory({ ...query, cursor }, json(options)),
      query.cursor,
    );
  }

  private async *paginate<T>(
    page: (cursor: string | undefined) => Promise<{ data: T[]; meta: { nextCursor: string | null } }>,
    first: string | undefined,
  ): AsyncGenerator<T, void, undefined> {
    let cursor = first;
    do {
      const { data, meta } = await page(cursor);
      yield* data;
      cursor = meta.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  /** A history page as JSON, or as CSV text when `options.csv` is true. */
  private history<P extends keyof Operations>(
    path: P,
    query: Operations[P]['query'],
    options: HistoryOptions = {},
  ): Promise<Operations[P]['response'] | string> {
    return options.csv === true ? this.getCsv(path, query, options) : this.get(path, query, options);
  }

  /** The parsed 200 body, or an MdsApiError. */
  private async get<P extends keyof Operations>(
    path: P,
    query: Operations[P]['query'],
    options: RequestOptions = {},
  ): Promise<Operations[P]['response']> {
    return envelopeOf(API, await this.send(path, query, 'application/json', options));
  }

  /** The 200 body as CSV text, or an MdsApiError: errors are JSON whatever was asked. */
  private async getCsv<P extends keyof Operations>(
    path: P,
    query: Operations[P]['query'],
    options: RequestOptions,
  ): Promise<string> {
    return csvOf(API, await this.send(path, query, 'text/csv', options));
  }

  /** GET with retries on 429/503: the 2xx answer, its body unread, or an MdsApiError. */
  private send(
    path: keyof Operations,
    query: Operations[keyof Operations]['query'],
    accept: 'application/json' | 'text/csv',
    options: RequestOptions,
  ): Promise<Response> {
    const url = this.baseUrl + path + queryString(query);
    const init = {
      method: 'GET',
      headers: { authorization: `Bearer ${this.#apiKey}`, accept },
      signal: options.signal,
    };
    return sendWithRetries(this, () => this.#fetch(url, init), API, retryable, options.signal);
  }
}

/** The options of one JSON page: whatever `csv` a caller's object holds, iterators and 1.0 names read JSON. */
function json(options: RequestOptions | undefined): JsonOptions {
  return { ...options, csv: false };
}
