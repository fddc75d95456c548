/**
 * GENERATED from the OpenAPI document of Market Data Service (DZD): admin API 1.0.0
 * by scripts/generate-client.ts (`npm run generate:client`, run by `npm run build`).
 * Do not edit: change the admin route schemas in src/schemas and regenerate.
 */

/** Version of the admin API document this file was generated from. */
export const ADMIN_API_VERSION = '1.0.0';

// ---- Component schemas -------------------------------------------------------

export interface AccountCreate {
  /** Display name */
  name?: string;
  /** Billing contact address */
  email?: string;
  /** The billing system’s own id for it (a customer or subscription id) */
  externalId?: string;
}

export interface Account {
  /** Account id */
  id: string;
  name: string | null;
  email: string | null;
  /** The billing system’s customer id; unique */
  externalId: string | null;
  /** Format: ISO 8601 date-time (UTC). */
  createdAt: string;
  /** Format: ISO 8601 date-time (UTC). */
  updatedAt: string;
}

export interface RequestMeta {
  /** Same value as the X-Request-Id header */
  requestId: string;
}

/** The body of every non-2xx answer of the admin API: `data` is null, `error` says why. */
export interface AdminErrorResponse {
  data: null;
  error: AdminErrorInfo;
  meta: RequestMeta;
}

/** The `error` of an admin API error answer. */
export interface AdminErrorInfo {
  status: number;
  code: AdminErrorCode;
  message: string;
  details?: AdminErrorDetail[];
  report?: ImportRefusal;
}

/** Every `error.code` of the admin API. */
export type AdminErrorCode =
  | 'invalid_request'
  | 'invalid_parameter'
  | 'invalid_cursor'
  | 'missing_admin_token'
  | 'invalid_admin_token'
  | 'insufficient_admin_scope'
  | 'not_found'
  | 'conflict'
  | 'idempotency_key_reused'
  | 'idempotency_key_in_progress'
  | 'payload_too_large'
  | 'uri_too_long'
  | 'unsupported_media_type'
  | 'too_many_requests'
  | 'internal_error'
  | 'service_unavailable'
  | 'insufficient_storage';

/** One problem of an admin API error answer. */
export interface AdminErrorDetail {
  parameter?: string;
  entitlement?: string;
  message?: string;
}

/** With a refused data import: every problem of the body, grouped; nothing was written */
export interface ImportRefusal {
  problems: ImportProblemListing;
  duplicateRows: ImportProblemListing;
  /** Rows of empty cells (`;;;;`) or blank lines, ignored */
  emptyRows: number;
  /** Columns with an empty header after the named ones, ignored (their cells must be empty) */
  emptyColumns: number;
}

export interface ImportProblemListing {
  /** Every problem found */
  count: number;
  /** The lines holding one or more */
  lines: number;
  /** Problems of one kind on consecutive rows, one group, in the order of their first line; at most 100 */
  groups: ImportProblemGroup[];
  /** Groups past the first 100 */
  groupsNotListed: number;
  /** The count of each kind, most frequent first; at most 100 */
  byKind: ImportProblemKind[];
  /** Kinds past the first 100 */
  kindsNotListed: number;
}

export interface ImportProblemGroup {
  /** The line of the first problem of the group */
  line: number;
  /** The line of its last problem (`line` for one) */
  lastLine: number;
  /** The problems in the group */
  count: number;
  /** What the problems are, without the values */
  kind: string;
  /** The first problem of the group, as written for its line */
  message: string;
}

export interface ImportProblemKind {
  kind: string;
  count: number;
}

export interface ListMeta {
  /** Same value as the X-Request-Id header */
  requestId: string;
  /** The next page’s `cursor`; null on the last page */
  nextCursor: string | null;
}

export interface AccountPatch {
  /** Display name */
  name?: string | null;
  /** Billing contact address */
  email?: string | null;
  /** The billing system’s own id for it (a customer or subscription id) */
  externalId?: string | null;
}

export interface GrantCreate {
  accountId: string;
  /** A plan of the catalogue, whose limits and scopes apply unless given here */
  plan: string;
  /** Entitlements (docs/decisions.md §4; legacy umbrellas accepted) */
  scopes?: string[];
  /**
   * Requests per calendar month (UTC)
   * From 1 to 1000000000000.
   */
  monthlyRequestLimit?: number;
  /**
   * Requests per UTC minute
   * From 1 to 1000000000000.
   */
  requestsPerMinute?: number;
  /** Who sold the grant; default `manual` */
  provider?: string;
  /** The billing system’s own id for it (a customer or subscription id) */
  externalId?: string;
  /**
   * Default now
   * Format: ISO 8601 date-time (UTC).
   */
  validFrom?: string;
  /**
   * Default: no end
   * Format: ISO 8601 date-time (UTC).
   */
  validUntil?: string;
}

export interface Grant {
  /** Grant id */
  id: string;
  accountId: string;
  /** Who sold the grant (a payment provider, `manual`) */
  provider: string;
  /** The provider’s id for it (a subscription id); unique per provider */
  externalId: string | null;
  plan: string;
  status: GrantStatus;
  /** As stored (legacy umbrellas included) */
  scopes: string[];
  /** What the scopes grant, expanded and sorted */
  entitlements: string[];
  /** Format: ISO 8601 date-time (UTC). */
  validFrom: string;
  /** Format: ISO 8601 date-time (UTC). */
  validUntil: string;
  monthlyRequestLimit: number;
  requestsPerMinute: number;
  /** Format: ISO 8601 date-time (UTC). */
  createdAt: string;
  /** Format: ISO 8601 date-time (UTC). */
  updatedAt: string;
}

/** active ⇄ suspended, either → cancelled (final) */
export type GrantStatus = 'active' | 'suspended' | 'cancelled';

export interface GrantPatch {
  status?: GrantStatus;
  /** Entitlements (docs/decisions.md §4; legacy umbrellas accepted) */
  scopes?: string[];
  /**
   * Requests per calendar month (UTC)
   * From 1 to 1000000000000.
   */
  monthlyRequestLimit?: number;
  /**
   * Requests per UTC minute
   * From 1 to 1000000000000.
   */
  requestsPerMinute?: number;
  /**
   * When the grant ends
   * Format: ISO 8601 date-time (UTC).
   */
  validUntil?: string;
}

export interface KeyCreate {
  grantId: string;
  label?: string;
  environment?: 'live' | 'test';
  /** Entitlements (docs/decisions.md §4; legacy umbrellas accepted) */
  scopes?: string[];
  /**
   * Default: never
   * Format: ISO 8601 date-time (UTC).
   */
  expiresAt?: string;
}

export interface CreatedKey {
  /** The full key: shown this once, never again */
  key: string;
  apiKey: Key;
}

export interface Key {
  /** The key’s public id */
  publicId: string;
  prefix: string;
  grantId: string;
  /** The account of the key’s grant */
  accountId: string;
  /** The plan of the key’s grant */
  plan: string;
  label: string;
  environment: 'live' | 'test';
  /** Null: the grant’s scopes */
  scopes: string[] | null;
  /** As stored: `revoked` once revoked, else `active`, whatever its expiry or its grant */
  status: 'active' | 'revoked';
  /**
   * Whether the key works now (`active`), else the first reason it does not: revoked, its grant cancelled, past its `expiresAt` (a rolled key past its grace period), its grant suspended, past its `validUntil` or before its `validFrom`
   */
  effectiveStatus:
    | 'active'
    | 'revoked'
    | 'grant_cancelled'
    | 'expired'
    | 'grant_suspended'
    | 'grant_expired'
    | 'grant_not_started';
  /** Format: ISO 8601 date-time (UTC). */
  expiresAt: string | null;
  /** Format: ISO 8601 date-time (UTC). */
  lastUsedAt: string | null;
  /** Format: ISO 8601 date-time (UTC). */
  createdAt: string;
  /** Format: ISO 8601 date-time (UTC). */
  revokedAt: string | null;
}

export interface KeyRoll {
  /**
   * How long the old key keeps working, in seconds, at most 90 days (default 86400)
   * From 0 to 7776000.
   */
  gracePeriodSeconds?: number;
}

export interface RolledKey {
  /** The full key: shown this once, never again */
  key: string;
  apiKey: Key;
  previous: Key;
  gracePeriodSeconds: number;
}

export interface AuditRecord {
  id: string;
  /** Format: ISO 8601 date-time (UTC). */
  at: string;
  actor: {
    /** An admin token’s public id, `cli` or `system` */
    id: string;
    label: string;
  };
  action: string;
  targetId: string;
  /** Each changed field, before and after (never a secret, a digest or a full key) */
  changes: Record<
    string,
    {
      before: unknown;
      after: unknown;
    }
  >;
  /** The admin API request’s id, or the import’s */
  requestId: string | null;
}

export interface RetractionCreate {
  currency?: string;
  source?: RateSource;
  purity?: GoldPurity;
  /**
   * The observation’s `updatedAt`, to the millisecond, with its offset
   * Format: ISO 8601 date-time (UTC).
   */
  at: string;
  /** Why it is taken back: kept with the retraction and in the audit log */
  reason: string;
  /** Change nothing: say what would be retracted and what the series’ latest would become */
  dryRun?: boolean;
}

/** Rate source family */
export type RateSource = 'parallel' | 'official' | 'transfer';

export type GoldPurity = '18K' | '21K' | '24K';

export interface Retraction {
  retraction: {
    /** Null on a dry run */
    id: string | null;
    kind: 'rates' | 'gold';
    /** The currency, or the purity for gold */
    code: string;
    /** The rate source, or `gold` */
    source: string;
    /** Format: ISO 8601 date-time (UTC). */
    updatedAt: string;
    /** DZD */
    buy: number;
    /** DZD */
    sell: number;
    reason: string;
    actor: {
      id: string;
      label: string;
    };
    /** Format: ISO 8601 date-time (UTC). */
    retractedAt: string;
  };
  /** The series’ latest observation after the retraction; null: none is left */
  latest: {
    /** Format: ISO 8601 date-time (UTC). */
    updatedAt: string;
    /** DZD */
    buy: number;
    /** DZD */
    sell: number;
  } | null;
  dryRun: boolean;
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

export interface StatementLine {
  account: {
    id: string;
    /** The billing system’s customer id */
    externalId: string | null;
  };
  grant: {
    id: string;
    plan: string;
    /** Who sold the grant */
    provider: string;
    /** The provider’s id for it (a subscription id) */
    externalId: string | null;
    /** The grant’s status now */
    status: 'active' | 'suspended' | 'cancelled';
    /**
     * When the grant was cancelled; null unless it is
     * Format: ISO 8601 date-time (UTC).
     */
    cancelledAt: string | null;
  };
  /** Requests counted in the month */
  requestsUsed: number;
  /** The grant’s monthly limit as it is now */
  monthlyRequestLimit: number;
}

export interface StatementMeta {
  /** Same value as the X-Request-Id header */
  requestId: string;
  /** The month of the statement, `YYYY-MM` */
  month: string;
}

export interface WebhookCreate {
  /** An https:// URL of a public host */
  url: string;
  /** The events to deliver, each once */
  eventTypes: WebhookEventType[];
  accountId?: string;
  filter?: AlertFilter;
  /** What it is for, for people */
  description?: string;
}

/** An event a subscription receives (docs/webhooks.md, "Events") */
export type WebhookEventType =
  | 'usage.threshold'
  | 'key.created'
  | 'key.revoked'
  | 'key.expiring'
  | 'grant.updated'
  | 'data.imported'
  | 'data.retracted'
  | 'data.stale'
  | 'data.fresh'
  | 'rate.alert'
  | 'reporter.flagged';

/**
 * A `rate.alert` condition, exactly one of `above` and `below`: it fires when it becomes true, once, and again only after it has been false
 */
export interface AlertFilter {
  /** `rate`: a source’s rate in DZD; `premium`: the parallel rate over the official one, in percent */
  metric: 'rate' | 'premium';
  /** A currency of the asset directory (GET /v1/assets) */
  currency: string;
  /** The rate’s source family: required for `rate`, absent for `premium` */
  source?: 'parallel' | 'official' | 'transfer';
  /** Which side of the quote */
  side: 'buy' | 'sell';
  /** Fires when the value reaches this level or more (a decimal: DZD, or percent) */
  above?: string;
  /** Fires when the value falls to this level or less (a decimal: DZD, or percent) */
  below?: string;
}

export interface WebhookWithSecret {
  /** Subscription id */
  id: string;
  /** Where deliveries are POSTed */
  url: string;
  eventTypes: WebhookEventType[];
  /** Only this account’s events and those of no account; null: every event */
  accountId: string | null;
  /**
   * A `rate.alert` condition, exactly one of `above` and `below`: it fires when it becomes true, once, and again only after it has been false
   */
  filter: {
    /** `rate`: a source’s rate in DZD; `premium`: the parallel rate over the official one, in percent */
    metric: 'rate' | 'premium';
    /** A currency of the asset directory (GET /v1/assets) */
    currency: string;
    /** The rate’s source family: required for `rate`, absent for `premium` */
    source?: 'parallel' | 'official' | 'transfer';
    /** Which side of the quote */
    side: 'buy' | 'sell';
    /** Fires when the value reaches this level or more (a decimal: DZD, or percent) */
    above?: string;
    /** Fires when the value falls to this level or less (a decimal: DZD, or percent) */
    below?: string;
  } | null;
  description: string | null;
  /** Only an enabled subscription is delivered to */
  status: 'enabled' | 'disabled';
  /** Who disabled it, or the deliveries that failed for a day; null when enabled */
  disabledReason: string | null;
  /** Whether the `filter` held when last evaluated; it fires only on turning true */
  alertActive: boolean;
  /**
   * Until when the secret before the last rotation still signs beside the current one; null outside that overlap
   * Format: ISO 8601 date-time (UTC).
   */
  previousSecretExpiresAt: string | null;
  /** Format: ISO 8601 date-time (UTC). */
  createdAt: string;
  /** Format: ISO 8601 date-time (UTC). */
  updatedAt: string;
  /** The signing secret (docs/webhooks.md, "Verifying a delivery"): shown this once, never again */
  secret: string;
}

export interface Webhook {
  /** Subscription id */
  id: string;
  /** Where deliveries are POSTed */
  url: string;
  eventTypes: WebhookEventType[];
  /** Only this account’s events and those of no account; null: every event */
  accountId: string | null;
  /**
   * A `rate.alert` condition, exactly one of `above` and `below`: it fires when it becomes true, once, and again only after it has been false
   */
  filter: {
    /** `rate`: a source’s rate in DZD; `premium`: the parallel rate over the official one, in percent */
    metric: 'rate' | 'premium';
    /** A currency of the asset directory (GET /v1/assets) */
    currency: string;
    /** The rate’s source family: required for `rate`, absent for `premium` */
    source?: 'parallel' | 'official' | 'transfer';
    /** Which side of the quote */
    side: 'buy' | 'sell';
    /** Fires when the value reaches this level or more (a decimal: DZD, or percent) */
    above?: string;
    /** Fires when the value falls to this level or less (a decimal: DZD, or percent) */
    below?: string;
  } | null;
  description: string | null;
  /** Only an enabled subscription is delivered to */
  status: 'enabled' | 'disabled';
  /** Who disabled it, or the deliveries that failed for a day; null when enabled */
  disabledReason: string | null;
  /** Whether the `filter` held when last evaluated; it fires only on turning true */
  alertActive: boolean;
  /**
   * Until when the secret before the last rotation still signs beside the current one; null outside that overlap
   * Format: ISO 8601 date-time (UTC).
   */
  previousSecretExpiresAt: string | null;
  /** Format: ISO 8601 date-time (UTC). */
  createdAt: string;
  /** Format: ISO 8601 date-time (UTC). */
  updatedAt: string;
}

export interface WebhookPatch {
  /** An https:// URL of a public host */
  url?: string;
  /** The events to deliver, each once */
  eventTypes?: WebhookEventType[];
  accountId?: string | null;
  /**
   * A `rate.alert` condition, exactly one of `above` and `below`: it fires when it becomes true, once, and again only after it has been false
   */
  filter?: {
    /** `rate`: a source’s rate in DZD; `premium`: the parallel rate over the official one, in percent */
    metric: 'rate' | 'premium';
    /** A currency of the asset directory (GET /v1/assets) */
    currency: string;
    /** The rate’s source family: required for `rate`, absent for `premium` */
    source?: 'parallel' | 'official' | 'transfer';
    /** Which side of the quote */
    side: 'buy' | 'sell';
    /** Fires when the value reaches this level or more (a decimal: DZD, or percent) */
    above?: string;
    /** Fires when the value falls to this level or less (a decimal: DZD, or percent) */
    below?: string;
  } | null;
  /** What it is for, for people */
  description?: string | null;
  /** false disables it, true enables it again */
  enabled?: boolean;
}

export interface WebhookRotate {
  /**
   * How long the secret being replaced keeps signing beside the new one: 0 ends it at once (a leaked secret), at most 7 days; 24 hours when absent
   * From 0 to 604800.
   * @default 86400
   */
  oldSecretExpiresInSeconds?: number;
}

export interface WebhookDelivery {
  /** Delivery id */
  id: string;
  /** The event’s id, its `webhook-id` */
  eventId: string;
  eventType: string;
  /** pending: an attempt is due; delivered: a 2xx came; failed: every attempt of the schedule failed */
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  /** Format: ISO 8601 date-time (UTC). */
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  /** Format: ISO 8601 date-time (UTC). */
  createdAt: string;
  /** Format: ISO 8601 date-time (UTC). */
  updatedAt: string;
  /** Every attempt, oldest first */
  log: WebhookAttempt[];
}

export interface WebhookAttempt {
  /** The attempt’s number, from 1 */
  n: number;
  /** Format: ISO 8601 date-time (UTC). */
  at: string;
  /** The receiver’s HTTP status; null when none came */
  statusCode: number | null;
  /** Why it failed (a timeout, a refused address); null on success */
  error: string | null;
  durationMs: number;
  /** The start of the receiver’s answer */
  responsePrefix: string;
}

export interface OrganisationCreate {
  /** The organisation: one shop, desk or network, whose reporters count once */
  name: string;
}

export interface Organisation {
  id: string;
  name: string;
  /** Format: ISO 8601 date-time (UTC). */
  createdAt: string;
  /** Format: ISO 8601 date-time (UTC). */
  updatedAt: string;
}

export interface ReporterCreate {
  organisationId: string;
  /** For the operator: who or what reports */
  label: string;
  /** The markets the reporter may quote */
  markets: string[];
}

export interface CreatedReporter {
  /** The reporter’s token, `mdsrep_…`: shown this once, never again */
  token: string;
  reporter: Reporter;
}

export interface Reporter {
  /** The reporter’s pseudonym */
  id: string;
  /** For the operator: who or what reports */
  label: string;
  organisationId: string;
  markets: string[];
  /** Only an active reporter’s quotes count; removed is final */
  status: 'active' | 'suspended' | 'removed';
  /** Format: ISO 8601 date-time (UTC). */
  createdAt: string;
  /** Format: ISO 8601 date-time (UTC). */
  updatedAt: string;
}

export interface ListedReporter {
  /** The reporter’s pseudonym */
  id: string;
  /** For the operator: who or what reports */
  label: string;
  organisationId: string;
  markets: string[];
  /** Only an active reporter’s quotes count; removed is final */
  status: 'active' | 'suspended' | 'removed';
  /** Format: ISO 8601 date-time (UTC). */
  createdAt: string;
  /** Format: ISO 8601 date-time (UTC). */
  updatedAt: string;
  /**
   * More than 30 % of its last 20 quotes failed the exclusion test on their own (decisions 117); its statistics: GET /admin/v1/reporters/{id}/stats
   */
  flagged: boolean;
}

export interface ReporterStatistics {
  reporterId: string;
  organisationId: string;
  /** Only an active reporter’s quotes count; removed is final */
  status: 'active' | 'suspended' | 'removed';
  /** Format: ISO 8601 date-time (UTC). */
  from: string;
  /** Format: ISO 8601 date-time (UTC). */
  to: string;
  /** Quotes sent in the last 30 days */
  quotes: number;
  /** Of them, judged against the consensus in force at their instant (none before a first one) */
  judged: number;
  /** Judged quotes whose own mid, buy or sell failed the exclusion test */
  failed: number;
  /** failed / judged × 100, 2 decimals; null when none was judged */
  failedPercent: number | null;
  /** The median of the judged quotes’ signed deviations from the consensus mid, percent, 2 decimals */
  medianDeviationPercent: number | null;
  /** More than 30 % of its last 20 quotes failed */
  flagged: boolean;
  /** What the flag is judged on */
  lastQuotes: {
    /** Its last quotes looked at: 20, or fewer if it sent fewer */
    sample: number;
    /** How many of them failed */
    failed: number;
  };
}

export interface ReporterPatch {
  /** For the operator: who or what reports */
  label?: string;
  organisationId?: string;
  /** The markets the reporter may quote */
  markets?: string[];
  /** suspended: its quotes stop counting; active: they count again */
  status?: 'active' | 'suspended';
}

export interface ReporterRoll {
  /**
   * How long the previous token keeps working; default one day
   * From 0 to 2592000.
   */
  gracePeriodSeconds?: number;
}

export interface RolledReporterToken {
  /** The reporter’s token, `mdsrep_…`: shown this once, never again */
  token: string;
  reporter: Reporter;
  /** Format: ISO 8601 date-time (UTC). */
  previousExpiresAt: string;
}

export interface ConsensusExplanation {
  market: string;
  /** Format: ISO 8601 date-time (UTC). */
  at: string;
  methodVersion: number;
  /** Published buy, DZD */
  buy: number;
  /** Published sell, DZD */
  sell: number;
  quality: {
    organisations: number;
    reporters: number;
    excluded: number;
    dispersionPercent: number | null;
    confidence: 'high' | 'medium' | 'low';
  };
  organisations: ExplainedOrganisation[];
  /** Used first, then excluded; oldest first within each */
  quotes: ExplainedQuote[];
}

export interface ExplainedOrganisation {
  organisationId: string;
  organisation: string | null;
  /** The median of its quotes’ buy, DZD */
  buy: number;
  /** The median of its quotes’ sell, DZD */
  sell: number;
  excluded: 'mid' | 'buy' | 'sell' | null;
  reason: string | null;
}

export interface ExplainedQuote {
  id: string;
  /** The reporter’s pseudonym */
  reporterId: string;
  organisationId: string;
  /** The organisation’s name */
  organisation: string | null;
  /** Quoted buy, DZD */
  buy: number;
  /** Quoted sell, DZD */
  sell: number;
  /** Format: ISO 8601 date-time (UTC). */
  observedAt: string;
  /** Format: ISO 8601 date-time (UTC). */
  receivedAt: string;
  /** From the instant it counts from to the point’s instant */
  ageSeconds: number;
  /** False: its organisation was excluded */
  used: boolean;
  excluded: 'mid' | 'buy' | 'sell' | null;
  /** Why its organisation was excluded, in words */
  reason: string | null;
}

export interface ConsensusVerification {
  /** Format: ISO 8601 date-time (UTC). */
  since: string | null;
  /** Points recomputed */
  checked: number;
  /** Empty: every point recomputes to what was published */
  differences: {
    market: string;
    /** Format: ISO 8601 date-time (UTC). */
    at: string;
    field: string;
    /** What the point holds, as JSON */
    stored: string;
    /** What the recomputation gives, as JSON */
    recomputed: string;
  }[];
}

export interface AdminTokenPatch {
  /** The token’s scopes from now on, the whole list; each one the calling token holds itself */
  scopes: string[];
}

export interface AdminToken {
  /** The token’s public id, the audit log’s actor */
  publicId: string;
  label: string;
  /** What the token may do */
  scopes: string[];
  status: 'active' | 'revoked';
  /** Format: ISO 8601 date-time (UTC). */
  createdAt: string;
  /** Format: ISO 8601 date-time (UTC). */
  lastUsedAt: string | null;
  /** Format: ISO 8601 date-time (UTC). */
  revokedAt: string | null;
}

export interface ImportReport {
  /** The import’s record (`mds imports list`) */
  importId: string;
  kind: 'assets' | 'rates' | 'gold';
  dryRun: boolean;
  received: number;
  inserted: number;
  updated: number;
  unchanged: number;
  /** Records left out because their observation was retracted (`reinstate=true` writes them) */
  retracted: number;
  /** Retracted observations written again */
  reinstated: number;
  /** The first 20 stored observations the import changed, with their previous values */
  revisions: {
    /** The currency, or the purity for gold */
    code: string;
    /** The rate source, or `gold` */
    source: string;
    /** Format: ISO 8601 date-time (UTC). */
    updatedAt: string;
    old: BuySell;
    new: BuySell;
  }[];
  /** What the guards found and `acceptOutliers=true` let through */
  outliers: ImportProblem[];
  duplicateRows: ImportProblemListing;
  /** Rows of empty cells (`;;;;`) or blank lines, ignored */
  emptyRows: number;
  /** Columns with an empty header after the named ones, ignored (their cells must be empty) */
  emptyColumns: number;
  /**
   * A workbook’s sheets not read: named otherwise than `<currency> - DZD`, or of a currency not in the asset directory. Only for a workbook
   */
  skippedSheets?: SkippedSheet[];
  /**
   * A workbook’s rates that held more than 6 decimal places (a computed cell), rounded half away from zero to 6. Only for a workbook, when any were
   */
  roundedRates?: number;
}

export interface BuySell {
  buy: number;
  sell: number;
}

export interface ImportProblem {
  line: number;
  message: string;
}

export interface SkippedSheet {
  sheet: string;
  reason: string;
}

// ---- createAccount -------------------------------------------------------------

/** The body of `POST /admin/v1/accounts`: Create an account */
export type CreateAccountBody = AccountCreate;

/** `data` of `POST /admin/v1/accounts`: Create an account */
export type CreateAccountData = Account;

/** `meta` of `POST /admin/v1/accounts`: Create an account */
export type CreateAccountMeta = RequestMeta;

/** The account (`POST /admin/v1/accounts`: Create an account) */
export interface CreateAccountResponse {
  data: CreateAccountData;
  meta: CreateAccountMeta;
}

// ---- listAccounts --------------------------------------------------------------

/** Query parameters of `GET /admin/v1/accounts`: List accounts */
export interface ListAccountsQuery {
  /** Only the account with this externalId */
  externalId?: string;
  /** Only accounts with this email */
  email?: string;
  /**
   * Page size
   * From 1 to 1000.
   * @default 100
   */
  limit?: number;
  /** Opaque continuation value from meta.nextCursor; reuse it only with the same filters */
  cursor?: string;
}

/** An item of `data` of `GET /admin/v1/accounts`: List accounts */
export type ListAccountsItem = Account;

/** `data` of `GET /admin/v1/accounts`: List accounts */
export type ListAccountsData = ListAccountsItem[];

/** `meta` of `GET /admin/v1/accounts`: List accounts */
export type ListAccountsMeta = ListMeta;

/** A page of accounts, oldest first (`GET /admin/v1/accounts`: List accounts) */
export interface ListAccountsResponse {
  data: ListAccountsData;
  meta: ListAccountsMeta;
}

// ---- getAccount ----------------------------------------------------------------

/** Path parameters of `GET /admin/v1/accounts/{id}`: Get an account */
export interface GetAccountParams {
  id: string;
}

/** `data` of `GET /admin/v1/accounts/{id}`: Get an account */
export type GetAccountData = Account;

/** `meta` of `GET /admin/v1/accounts/{id}`: Get an account */
export type GetAccountMeta = RequestMeta;

/** The account (`GET /admin/v1/accounts/{id}`: Get an account) */
export interface GetAccountResponse {
  data: GetAccountData;
  meta: GetAccountMeta;
}

// ---- updateAccount -------------------------------------------------------------

/** Path parameters of `PATCH /admin/v1/accounts/{id}`: Change an account */
export interface UpdateAccountParams {
  id: string;
}

/** The body of `PATCH /admin/v1/accounts/{id}`: Change an account */
export type UpdateAccountBody = AccountPatch;

/** `data` of `PATCH /admin/v1/accounts/{id}`: Change an account */
export type UpdateAccountData = Account;

/** `meta` of `PATCH /admin/v1/accounts/{id}`: Change an account */
export type UpdateAccountMeta = RequestMeta;

/** The account as changed (`PATCH /admin/v1/accounts/{id}`: Change an account) */
export interface UpdateAccountResponse {
  data: UpdateAccountData;
  meta: UpdateAccountMeta;
}

// ---- createGrant ---------------------------------------------------------------

/** The body of `POST /admin/v1/grants`: Create a grant */
export type CreateGrantBody = GrantCreate;

/** `data` of `POST /admin/v1/grants`: Create a grant */
export type CreateGrantData = Grant;

/** `meta` of `POST /admin/v1/grants`: Create a grant */
export type CreateGrantMeta = RequestMeta;

/** The grant (`POST /admin/v1/grants`: Create a grant) */
export interface CreateGrantResponse {
  data: CreateGrantData;
  meta: CreateGrantMeta;
}

// ---- listGrants ----------------------------------------------------------------

/** Query parameters of `GET /admin/v1/grants`: List grants */
export interface ListGrantsQuery {
  /** Only this account’s grants */
  accountId?: string;
  /** Only grants sold by this provider */
  provider?: string;
  /** Only grants with this externalId */
  externalId?: string;
  /** active ⇄ suspended, either → cancelled (final) */
  status?: 'active' | 'suspended' | 'cancelled';
  /**
   * Page size
   * From 1 to 1000.
   * @default 100
   */
  limit?: number;
  /** Opaque continuation value from meta.nextCursor; reuse it only with the same filters */
  cursor?: string;
}

/** An item of `data` of `GET /admin/v1/grants`: List grants */
export type ListGrantsItem = Grant;

/** `data` of `GET /admin/v1/grants`: List grants */
export type ListGrantsData = ListGrantsItem[];

/** `meta` of `GET /admin/v1/grants`: List grants */
export type ListGrantsMeta = ListMeta;

/** A page of grants, oldest first (`GET /admin/v1/grants`: List grants) */
export interface ListGrantsResponse {
  data: ListGrantsData;
  meta: ListGrantsMeta;
}

// ---- getGrant ------------------------------------------------------------------

/** Path parameters of `GET /admin/v1/grants/{id}`: Get a grant */
export interface GetGrantParams {
  id: string;
}

/** `data` of `GET /admin/v1/grants/{id}`: Get a grant */
export type GetGrantData = Grant;

/** `meta` of `GET /admin/v1/grants/{id}`: Get a grant */
export type GetGrantMeta = RequestMeta;

/** The grant (`GET /admin/v1/grants/{id}`: Get a grant) */
export interface GetGrantResponse {
  data: GetGrantData;
  meta: GetGrantMeta;
}

// ---- updateGrant ---------------------------------------------------------------

/** Path parameters of `PATCH /admin/v1/grants/{id}`: Change a grant */
export interface UpdateGrantParams {
  id: string;
}

/** The body of `PATCH /admin/v1/grants/{id}`: Change a grant */
export type UpdateGrantBody = GrantPatch;

/** `data` of `PATCH /admin/v1/grants/{id}`: Change a grant */
export type UpdateGrantData = Grant;

/** `meta` of `PATCH /admin/v1/grants/{id}`: Change a grant */
export type UpdateGrantMeta = RequestMeta;

/** The grant as changed (`PATCH /admin/v1/grants/{id}`: Change a grant) */
export interface UpdateGrantResponse {
  data: UpdateGrantData;
  meta: UpdateGrantMeta;
}

// ---- createKey -----------------------------------------------------------------

/** The body of `POST /admin/v1/keys`: Create a key */
export type CreateKeyBody = KeyCreate;

/** `data` of `POST /admin/v1/keys`: Create a key */
export type CreateKeyData = CreatedKey;

/** `meta` of `POST /admin/v1/keys`: Create a key */
export type CreateKeyMeta = RequestMeta;

/**
 * The new key: the full key (`key`), shown this once, and what lists show of it (`apiKey`) (`POST /admin/v1/keys`: Create a key)
 */
export interface CreateKeyResponse {
  data: CreateKeyData;
  meta: CreateKeyMeta;
}

// ---- listKeys ------------------------------------------------------------------

/** Query parameters of `GET /admin/v1/keys`: List keys */
export interface ListKeysQuery {
  /** Only this grant’s keys */
  grantId?: string;
  /** Only keys of this account’s grants */
  accountId?: string;
  /**
   * Page size
   * From 1 to 1000.
   * @default 100
   */
  limit?: number;
  /** Opaque continuation value from meta.nextCursor; reuse it only with the same filters */
  cursor?: string;
}

/** An item of `data` of `GET /admin/v1/keys`: List keys */
export type ListKeysItem = Key;

/** `data` of `GET /admin/v1/keys`: List keys */
export type ListKeysData = ListKeysItem[];

/** `meta` of `GET /admin/v1/keys`: List keys */
export type ListKeysMeta = ListMeta;

/** A page of keys, oldest first, each with its account and plan (`GET /admin/v1/keys`: List keys) */
export interface ListKeysResponse {
  data: ListKeysData;
  meta: ListKeysMeta;
}

// ---- getKey --------------------------------------------------------------------

/** Path parameters of `GET /admin/v1/keys/{publicId}`: Get a key */
export interface GetKeyParams {
  publicId: string;
}

/** `data` of `GET /admin/v1/keys/{publicId}`: Get a key */
export type GetKeyData = Key;

/** `meta` of `GET /admin/v1/keys/{publicId}`: Get a key */
export type GetKeyMeta = RequestMeta;

/** The key (`GET /admin/v1/keys/{publicId}`: Get a key) */
export interface GetKeyResponse {
  data: GetKeyData;
  meta: GetKeyMeta;
}

// ---- revokeKey -----------------------------------------------------------------

/** Path parameters of `POST /admin/v1/keys/{publicId}/revoke`: Revoke a key */
export interface RevokeKeyParams {
  publicId: string;
}

/** `data` of `POST /admin/v1/keys/{publicId}/revoke`: Revoke a key */
export type RevokeKeyData = Key;

/** `meta` of `POST /admin/v1/keys/{publicId}/revoke`: Revoke a key */
export type RevokeKeyMeta = RequestMeta;

/** The key, revoked (`POST /admin/v1/keys/{publicId}/revoke`: Revoke a key) */
export interface RevokeKeyResponse {
  data: RevokeKeyData;
  meta: RevokeKeyMeta;
}

// ---- rollKey -------------------------------------------------------------------

/** Path parameters of `POST /admin/v1/keys/{publicId}/roll`: Roll a key */
export interface RollKeyParams {
  publicId: string;
}

/** The body of `POST /admin/v1/keys/{publicId}/roll`: Roll a key */
export type RollKeyBody = KeyRoll;

/** `data` of `POST /admin/v1/keys/{publicId}/roll`: Roll a key */
export type RollKeyData = RolledKey;

/** `meta` of `POST /admin/v1/keys/{publicId}/roll`: Roll a key */
export type RollKeyMeta = RequestMeta;

/**
 * The new key of the same grant, label and scopes (its full key shown this once) and the old one (`previous`), which keeps working until its `expiresAt`, the end of the grace period (`POST /admin/v1/keys/{publicId}/roll`: Roll a key)
 */
export interface RollKeyResponse {
  data: RollKeyData;
  meta: RollKeyMeta;
}

// ---- listAudit -----------------------------------------------------------------

/** Query parameters of `GET /admin/v1/audit`: Read the audit log */
export interface ListAuditQuery {
  /** Only changes by this actor id */
  actor?: string;
  /** Only changes of this resource */
  targetId?: string;
  /** Only this action */
  action?: string;
  /**
   * Inclusive start
   * Format: ISO 8601 date-time (UTC).
   */
  from?: string;
  /**
   * Inclusive end
   * Format: ISO 8601 date-time (UTC).
   */
  to?: string;
  /**
   * Page size
   * From 1 to 1000.
   * @default 100
   */
  limit?: number;
  /** Opaque continuation value from meta.nextCursor; reuse it only with the same filters */
  cursor?: string;
}

/** An item of `data` of `GET /admin/v1/audit`: Read the audit log */
export type ListAuditItem = AuditRecord;

/** `data` of `GET /admin/v1/audit`: Read the audit log */
export type ListAuditData = ListAuditItem[];

/** `meta` of `GET /admin/v1/audit`: Read the audit log */
export type ListAuditMeta = ListMeta;

/** A page of audit records, newest first (`GET /admin/v1/audit`: Read the audit log) */
export interface ListAuditResponse {
  data: ListAuditData;
  meta: ListAuditMeta;
}

// ---- retractObservation --------------------------------------------------------

/** The body of `POST /admin/v1/data/retractions`: Retract an observation */
export type RetractObservationBody = RetractionCreate;

/** `data` of `POST /admin/v1/data/retractions`: Retract an observation */
export type RetractObservationData = Retraction;

/** `meta` of `POST /admin/v1/data/retractions`: Retract an observation */
export type RetractObservationMeta = RequestMeta;

/**
 * What was retracted (what it published, and why) and the series’ latest now, or with `dryRun` what would be and would become; nothing changed on a dry run (`POST /admin/v1/data/retractions`: Retract an observation)
 */
export interface RetractObservationResponse {
  data: RetractObservationData;
  meta: RetractObservationMeta;
}

// ---- getGrantDailyUsage --------------------------------------------------------

/** Path parameters of `GET /admin/v1/grants/{id}/usage/daily`: A grant’s daily usage */
export interface GetGrantDailyUsageParams {
  id: string;
}

/** Query parameters of `GET /admin/v1/grants/{id}/usage/daily`: A grant’s daily usage */
export interface GetGrantDailyUsageQuery {
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

/** `data` of `GET /admin/v1/grants/{id}/usage/daily`: A grant’s daily usage */
export type GetGrantDailyUsageData = DailyUsage;

/** `meta` of `GET /admin/v1/grants/{id}/usage/daily`: A grant’s daily usage */
export type GetGrantDailyUsageMeta = RequestMeta;

/**
 * The grant’s requests per UTC day, with each key’s (`GET /admin/v1/grants/{id}/usage/daily`: A grant’s daily usage)
 */
export interface GetGrantDailyUsageResponse {
  data: GetGrantDailyUsageData;
  meta: GetGrantDailyUsageMeta;
}

// ---- getUsageStatement ---------------------------------------------------------

/** Query parameters of `GET /admin/v1/usage/statement`: The month’s usage statement */
export interface GetUsageStatementQuery {
  /** The calendar month (UTC), `YYYY-MM`; default the current one */
  month?: string;
}

/** An item of `data` of `GET /admin/v1/usage/statement`: The month’s usage statement */
export type GetUsageStatementItem = StatementLine;

/** `data` of `GET /admin/v1/usage/statement`: The month’s usage statement */
export type GetUsageStatementData = GetUsageStatementItem[];

/** `meta` of `GET /admin/v1/usage/statement`: The month’s usage statement */
export type GetUsageStatementMeta = StatementMeta;

/**
 * Every grant created before the month ended, with its requests in the month (`GET /admin/v1/usage/statement`: The month’s usage statement)
 */
export interface GetUsageStatementResponse {
  data: GetUsageStatementData;
  meta: GetUsageStatementMeta;
}

// ---- createWebhook -------------------------------------------------------------

/** The body of `POST /admin/v1/webhooks`: Create a webhook subscription */
export type CreateWebhookBody = WebhookCreate;

/** `data` of `POST /admin/v1/webhooks`: Create a webhook subscription */
export type CreateWebhookData = WebhookWithSecret;

/** `meta` of `POST /admin/v1/webhooks`: Create a webhook subscription */
export type CreateWebhookMeta = RequestMeta;

/** The subscription and its secret (`POST /admin/v1/webhooks`: Create a webhook subscription) */
export interface CreateWebhookResponse {
  data: CreateWebhookData;
  meta: CreateWebhookMeta;
}

// ---- listWebhooks --------------------------------------------------------------

/** Query parameters of `GET /admin/v1/webhooks`: List webhook subscriptions */
export interface ListWebhooksQuery {
  /** Only this account’s subscriptions */
  accountId?: string;
  /**
   * Page size
   * From 1 to 1000.
   * @default 100
   */
  limit?: number;
  /** Opaque continuation value from meta.nextCursor; reuse it only with the same filters */
  cursor?: string;
}

/** An item of `data` of `GET /admin/v1/webhooks`: List webhook subscriptions */
export type ListWebhooksItem = Webhook;

/** `data` of `GET /admin/v1/webhooks`: List webhook subscriptions */
export type ListWebhooksData = ListWebhooksItem[];

/** `meta` of `GET /admin/v1/webhooks`: List webhook subscriptions */
export type ListWebhooksMeta = ListMeta;

/**
 * A page of subscriptions, oldest first (never a secret) (`GET /admin/v1/webhooks`: List webhook subscriptions)
 */
export interface ListWebhooksResponse {
  data: ListWebhooksData;
  meta: ListWebhooksMeta;
}

// ---- getWebhook ----------------------------------------------------------------

/** Path parameters of `GET /admin/v1/webhooks/{id}`: Get a webhook subscription */
export interface GetWebhookParams {
  id: string;
}

/** `data` of `GET /admin/v1/webhooks/{id}`: Get a webhook subscription */
export type GetWebhookData = Webhook;

/** `meta` of `GET /admin/v1/webhooks/{id}`: Get a webhook subscription */
export type GetWebhookMeta = RequestMeta;

/** The subscription (`GET /admin/v1/webhooks/{id}`: Get a webhook subscription) */
export interface GetWebhookResponse {
  data: GetWebhookData;
  meta: GetWebhookMeta;
}

// ---- updateWebhook -------------------------------------------------------------

/** Path parameters of `PATCH /admin/v1/webhooks/{id}`: Change a webhook subscription */
export interface UpdateWebhookParams {
  id: string;
}

/** The body of `PATCH /admin/v1/webhooks/{id}`: Change a webhook subscription */
export type UpdateWebhookBody = WebhookPatch;

/** `data` of `PATCH /admin/v1/webhooks/{id}`: Change a webhook subscription */
export type UpdateWebhookData = Webhook;

/** `meta` of `PATCH /admin/v1/webhooks/{id}`: Change a webhook subscription */
export type UpdateWebhookMeta = RequestMeta;

/** The subscription as changed (`PATCH /admin/v1/webhooks/{id}`: Change a webhook subscription) */
export interface UpdateWebhookResponse {
  data: UpdateWebhookData;
  meta: UpdateWebhookMeta;
}

// ---- deleteWebhook -------------------------------------------------------------

/** Path parameters of `DELETE /admin/v1/webhooks/{id}`: Delete a webhook subscription */
export interface DeleteWebhookParams {
  id: string;
}

/**
 * Deleted, with its deliveries: nothing more is sent to it (`DELETE /admin/v1/webhooks/{id}`: Delete a webhook subscription): no body.
 */
export type DeleteWebhookResponse = undefined;

// ---- rotateWebhookSecret -------------------------------------------------------

/** Path parameters of `POST /admin/v1/webhooks/{id}/rotate-secret`: Rotate a webhook subscription’s secret */
export interface RotateWebhookSecretParams {
  id: string;
}

/** The body of `POST /admin/v1/webhooks/{id}/rotate-secret`: Rotate a webhook subscription’s secret */
export type RotateWebhookSecretBody = WebhookRotate;

/** `data` of `POST /admin/v1/webhooks/{id}/rotate-secret`: Rotate a webhook subscription’s secret */
export type RotateWebhookSecretData = WebhookWithSecret;

/** `meta` of `POST /admin/v1/webhooks/{id}/rotate-secret`: Rotate a webhook subscription’s secret */
export type RotateWebhookSecretMeta = RequestMeta;

/**
 * The subscription and its new secret (`POST /admin/v1/webhooks/{id}/rotate-secret`: Rotate a webhook subscription’s secret)
 */
export interface RotateWebhookSecretResponse {
  data: RotateWebhookSecretData;
  meta: RotateWebhookSecretMeta;
}

// ---- listWebhookDeliveries -----------------------------------------------------

/** Path parameters of `GET /admin/v1/webhooks/{id}/deliveries`: List a webhook subscription’s deliveries */
export interface ListWebhookDeliveriesParams {
  id: string;
}

/** Query parameters of `GET /admin/v1/webhooks/{id}/deliveries`: List a webhook subscription’s deliveries */
export interface ListWebhookDeliveriesQuery {
  /**
   * Page size
   * From 1 to 1000.
   * @default 100
   */
  limit?: number;
  /** Opaque continuation value from meta.nextCursor; reuse it only with the same filters */
  cursor?: string;
}

/** An item of `data` of `GET /admin/v1/webhooks/{id}/deliveries`: List a webhook subscription’s deliveries */
export type ListWebhookDeliveriesItem = WebhookDelivery;

/** `data` of `GET /admin/v1/webhooks/{id}/deliveries`: List a webhook subscription’s deliveries */
export type ListWebhookDeliveriesData = ListWebhookDeliveriesItem[];

/** `meta` of `GET /admin/v1/webhooks/{id}/deliveries`: List a webhook subscription’s deliveries */
export type ListWebhookDeliveriesMeta = ListMeta;

/**
 * A page of the subscription’s deliveries, newest first, each with its attempts (`GET /admin/v1/webhooks/{id}/deliveries`: List a webhook subscription’s deliveries)
 */
export interface ListWebhookDeliveriesResponse {
  data: ListWebhookDeliveriesData;
  meta: ListWebhookDeliveriesMeta;
}

// ---- redeliverWebhook ----------------------------------------------------------

/**
 * Path parameters of `POST /admin/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver`: Deliver an event again
 */
export interface RedeliverWebhookParams {
  id: string;
  deliveryId: string;
}

/** `data` of `POST /admin/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver`: Deliver an event again */
export type RedeliverWebhookData = WebhookDelivery;

/** `meta` of `POST /admin/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver`: Deliver an event again */
export type RedeliverWebhookMeta = RequestMeta;

/**
 * The delivery, queued again (`POST /admin/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver`: Deliver an event again)
 */
export interface RedeliverWebhookResponse {
  data: RedeliverWebhookData;
  meta: RedeliverWebhookMeta;
}

// ---- createOrganisation --------------------------------------------------------

/** The body of `POST /admin/v1/organisations`: Create an organisation */
export type CreateOrganisationBody = OrganisationCreate;

/** `data` of `POST /admin/v1/organisations`: Create an organisation */
export type CreateOrganisationData = Organisation;

/** `meta` of `POST /admin/v1/organisations`: Create an organisation */
export type CreateOrganisationMeta = RequestMeta;

/** The organisation (`POST /admin/v1/organisations`: Create an organisation) */
export interface CreateOrganisationResponse {
  data: CreateOrganisationData;
  meta: CreateOrganisationMeta;
}

// ---- listOrganisations ---------------------------------------------------------

/** Query parameters of `GET /admin/v1/organisations`: List organisations */
export interface ListOrganisationsQuery {
  /**
   * Page size
   * From 1 to 1000.
   * @default 100
   */
  limit?: number;
  /** Opaque continuation value from meta.nextCursor; reuse it only with the same filters */
  cursor?: string;
}

/** An item of `data` of `GET /admin/v1/organisations`: List organisations */
export type ListOrganisationsItem = Organisation;

/** `data` of `GET /admin/v1/organisations`: List organisations */
export type ListOrganisationsData = ListOrganisationsItem[];

/** `meta` of `GET /admin/v1/organisations`: List organisations */
export type ListOrganisationsMeta = ListMeta;

/** A page of organisations, oldest first (`GET /admin/v1/organisations`: List organisations) */
export interface ListOrganisationsResponse {
  data: ListOrganisationsData;
  meta: ListOrganisationsMeta;
}

// ---- createReporter ------------------------------------------------------------

/** The body of `POST /admin/v1/reporters`: Create a reporter */
export type CreateReporterBody = ReporterCreate;

/** `data` of `POST /admin/v1/reporters`: Create a reporter */
export type CreateReporterData = CreatedReporter;

/** `meta` of `POST /admin/v1/reporters`: Create a reporter */
export type CreateReporterMeta = RequestMeta;

/**
 * The new reporter and its token (`token`), shown this once (`POST /admin/v1/reporters`: Create a reporter)
 */
export interface CreateReporterResponse {
  data: CreateReporterData;
  meta: CreateReporterMeta;
}

// ---- listReporters -------------------------------------------------------------

/** Query parameters of `GET /admin/v1/reporters`: List reporters */
export interface ListReportersQuery {
  /**
   * Page size
   * From 1 to 1000.
   * @default 100
   */
  limit?: number;
  /** Opaque continuation value from meta.nextCursor; reuse it only with the same filters */
  cursor?: string;
  organisationId?: string;
}

/** An item of `data` of `GET /admin/v1/reporters`: List reporters */
export type ListReportersItem = ListedReporter;

/** `data` of `GET /admin/v1/reporters`: List reporters */
export type ListReportersData = ListReportersItem[];

/** `meta` of `GET /admin/v1/reporters`: List reporters */
export type ListReportersMeta = ListMeta;

/** A page of reporters, oldest first, each flagged or not (`GET /admin/v1/reporters`: List reporters) */
export interface ListReportersResponse {
  data: ListReportersData;
  meta: ListReportersMeta;
}

// ---- getReporter ---------------------------------------------------------------

/** Path parameters of `GET /admin/v1/reporters/{id}`: Get a reporter */
export interface GetReporterParams {
  id: string;
}

/** `data` of `GET /admin/v1/reporters/{id}`: Get a reporter */
export type GetReporterData = Reporter;

/** `meta` of `GET /admin/v1/reporters/{id}`: Get a reporter */
export type GetReporterMeta = RequestMeta;

/** The reporter (`GET /admin/v1/reporters/{id}`: Get a reporter) */
export interface GetReporterResponse {
  data: GetReporterData;
  meta: GetReporterMeta;
}

// ---- updateReporter ------------------------------------------------------------

/** Path parameters of `PATCH /admin/v1/reporters/{id}`: Change a reporter */
export interface UpdateReporterParams {
  id: string;
}

/** The body of `PATCH /admin/v1/reporters/{id}`: Change a reporter */
export type UpdateReporterBody = ReporterPatch;

/** `data` of `PATCH /admin/v1/reporters/{id}`: Change a reporter */
export type UpdateReporterData = Reporter;

/** `meta` of `PATCH /admin/v1/reporters/{id}`: Change a reporter */
export type UpdateReporterMeta = RequestMeta;

/** The reporter as changed (`PATCH /admin/v1/reporters/{id}`: Change a reporter) */
export interface UpdateReporterResponse {
  data: UpdateReporterData;
  meta: UpdateReporterMeta;
}

// ---- getReporterStatistics -----------------------------------------------------

/** Path parameters of `GET /admin/v1/reporters/{id}/stats`: A reporter’s statistics */
export interface GetReporterStatisticsParams {
  id: string;
}

/** `data` of `GET /admin/v1/reporters/{id}/stats`: A reporter’s statistics */
export type GetReporterStatisticsData = ReporterStatistics;

/** `meta` of `GET /admin/v1/reporters/{id}/stats`: A reporter’s statistics */
export type GetReporterStatisticsMeta = RequestMeta;

/**
 * The reporter’s statistics over the last 30 days (`GET /admin/v1/reporters/{id}/stats`: A reporter’s statistics)
 */
export interface GetReporterStatisticsResponse {
  data: GetReporterStatisticsData;
  meta: GetReporterStatisticsMeta;
}

// ---- removeReporter ------------------------------------------------------------

/** Path parameters of `POST /admin/v1/reporters/{id}/remove`: Remove a reporter */
export interface RemoveReporterParams {
  id: string;
}

/** `data` of `POST /admin/v1/reporters/{id}/remove`: Remove a reporter */
export type RemoveReporterData = Reporter;

/** `meta` of `POST /admin/v1/reporters/{id}/remove`: Remove a reporter */
export type RemoveReporterMeta = RequestMeta;

/** The reporter, removed (`POST /admin/v1/reporters/{id}/remove`: Remove a reporter) */
export interface RemoveReporterResponse {
  data: RemoveReporterData;
  meta: RemoveReporterMeta;
}

// ---- rollReporterToken ---------------------------------------------------------

/** Path parameters of `POST /admin/v1/reporters/{id}/roll`: Roll a reporter’s token */
export interface RollReporterTokenParams {
  id: string;
}

/** The body of `POST /admin/v1/reporters/{id}/roll`: Roll a reporter’s token */
export type RollReporterTokenBody = ReporterRoll;

/** `data` of `POST /admin/v1/reporters/{id}/roll`: Roll a reporter’s token */
export type RollReporterTokenData = RolledReporterToken;

/** `meta` of `POST /admin/v1/reporters/{id}/roll`: Roll a reporter’s token */
export type RollReporterTokenMeta = RequestMeta;

/**
 * The reporter’s new token, shown this once; its previous tokens work until `previousExpiresAt` (`POST /admin/v1/reporters/{id}/roll`: Roll a reporter’s token)
 */
export interface RollReporterTokenResponse {
  data: RollReporterTokenData;
  meta: RollReporterTokenMeta;
}

// ---- explainConsensus ----------------------------------------------------------

/** Query parameters of `GET /admin/v1/consensus/explain`: Explain a published consensus point */
export interface ExplainConsensusQuery {
  currency?: string;
  purity?: '18K' | '21K' | '24K';
  /**
   * The point in force at this instant (the latest at or before it); default: the latest point
   * Format: ISO 8601 date-time (UTC).
   */
  at?: string;
}

/** `data` of `GET /admin/v1/consensus/explain`: Explain a published consensus point */
export type ExplainConsensusData = ConsensusExplanation;

/** `meta` of `GET /admin/v1/consensus/explain`: Explain a published consensus point */
export type ExplainConsensusMeta = RequestMeta;

/**
 * The published point, its quality, and every quote it used or excluded (`GET /admin/v1/consensus/explain`: Explain a published consensus point)
 */
export interface ExplainConsensusResponse {
  data: ExplainConsensusData;
  meta: ExplainConsensusMeta;
}

// ---- verifyConsensus -----------------------------------------------------------

/** Query parameters of `GET /admin/v1/consensus/verify`: Recompute the published consensus points */
export interface VerifyConsensusQuery {
  /**
   * Points published at or after this instant; default: every point
   * Format: ISO 8601 date-time (UTC).
   */
  since?: string;
}

/** `data` of `GET /admin/v1/consensus/verify`: Recompute the published consensus points */
export type VerifyConsensusData = ConsensusVerification;

/** `meta` of `GET /admin/v1/consensus/verify`: Recompute the published consensus points */
export type VerifyConsensusMeta = RequestMeta;

/**
 * Every published point since `since`, recomputed from the stored quotes; the differences found (`GET /admin/v1/consensus/verify`: Recompute the published consensus points)
 */
export interface VerifyConsensusResponse {
  data: VerifyConsensusData;
  meta: VerifyConsensusMeta;
}

// ---- updateAdminToken ----------------------------------------------------------

/** Path parameters of `PATCH /admin/v1/admin-tokens/{publicId}`: Change an admin token’s scopes */
export interface UpdateAdminTokenParams {
  publicId: string;
}

/** The body of `PATCH /admin/v1/admin-tokens/{publicId}`: Change an admin token’s scopes */
export type UpdateAdminTokenBody = AdminTokenPatch;

/** `data` of `PATCH /admin/v1/admin-tokens/{publicId}`: Change an admin token’s scopes */
export type UpdateAdminTokenData = AdminToken;

/** `meta` of `PATCH /admin/v1/admin-tokens/{publicId}`: Change an admin token’s scopes */
export type UpdateAdminTokenMeta = RequestMeta;

/**
 * The admin token (never its secret) (`PATCH /admin/v1/admin-tokens/{publicId}`: Change an admin token’s scopes)
 */
export interface UpdateAdminTokenResponse {
  data: UpdateAdminTokenData;
  meta: UpdateAdminTokenMeta;
}

// ---- importData ----------------------------------------------------------------

/** Path parameters of `POST /admin/v1/data/{kind}`: Import market data */
export interface ImportDataParams {
  /** What the body holds: the asset directory, rates or gold references */
  kind: 'assets' | 'rates' | 'gold';
}

/** Query parameters of `POST /admin/v1/data/{kind}`: Import market data */
export interface ImportDataQuery {
  /** Run the import in its transaction and roll it back: the report of a real import, nothing kept */
  dryRun?: 'true' | 'false';
  /**
   * The largest change from the previous observation of a series, in percent, above 0 and at most 10000 (default 20), as `mds import --max-change`
   */
  maxChange?: string;
  /** The body was reviewed: the guards’ findings are reported and let through, as `--accept-outliers` */
  acceptOutliers?: 'true' | 'false';
  /**
   * Records of retracted observations are written again and their retractions lifted, as `--reinstate`; without it they are left out and counted in `retracted`
   */
  reinstate?: 'true' | 'false';
  /**
   * The IANA zone the body’s local times (without an offset) are in, as `mds import --timezone`; without it they are refused
   */
  timezone?: string;
  /**
   * How a date written with the day and the month before the year is read: `dmy` (28/11/2026 09:30) or `mdy`, as `mds import --date-order`; without it such dates are refused
   */
  dateOrder?: 'dmy' | 'mdy';
}

/** `data` of `POST /admin/v1/data/{kind}`: Import market data */
export type ImportDataData = ImportReport;

/** `meta` of `POST /admin/v1/data/{kind}`: Import market data */
export type ImportDataMeta = RequestMeta;

/**
 * What the import wrote, or with `dryRun=true` would write; nothing was kept on a dry run (`POST /admin/v1/data/{kind}`: Import market data)
 */
export interface ImportDataResponse {
  data: ImportDataData;
  meta: ImportDataMeta;
}

// ---- Errors ------------------------------------------------------------------

// ---- Operations --------------------------------------------------------------

/** Every operation of the admin document, in document order, with the scope it requires. */
export const ADMIN_OPERATIONS = [
  {
    operationId: 'createAccount',
    method: 'POST',
    path: '/admin/v1/accounts',
    status: 201,
    scope: 'accounts:write',
    pathParams: [],
    query: [],
    requiredQuery: [],
    body: 'json',
    csv: false,
  },
  {
    operationId: 'listAccounts',
    method: 'GET',
    path: '/admin/v1/accounts',
    status: 200,
    scope: 'accounts:read',
    pathParams: [],
    query: ['externalId', 'email', 'limit', 'cursor'],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'getAccount',
    method: 'GET',
    path: '/admin/v1/accounts/{id}',
    status: 200,
    scope: 'accounts:read',
    pathParams: ['id'],
    query: [],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'updateAccount',
    method: 'PATCH',
    path: '/admin/v1/accounts/{id}',
    status: 200,
    scope: 'accounts:write',
    pathParams: ['id'],
    query: [],
    requiredQuery: [],
    body: 'json',
    csv: false,
  },
  {
    operationId: 'createGrant',
    method: 'POST',
    path: '/admin/v1/grants',
    status: 201,
    scope: 'accounts:write',
    pathParams: [],
    query: [],
    requiredQuery: [],
    body: 'json',
    csv: false,
  },
  {
    operationId: 'listGrants',
    method: 'GET',
    path: '/admin/v1/grants',
    status: 200,
    scope: 'accounts:read',
    pathParams: [],
    query: ['accountId', 'provider', 'externalId', 'status', 'limit', 'cursor'],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'getGrant',
    method: 'GET',
    path: '/admin/v1/grants/{id}',
    status: 200,
    scope: 'accounts:read',
    pathParams: ['id'],
    query: [],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'updateGrant',
    method: 'PATCH',
    path: '/admin/v1/grants/{id}',
    status: 200,
    scope: 'accounts:write',
    pathParams: ['id'],
    query: [],
    requiredQuery: [],
    body: 'json',
    csv: false,
  },
  {
    operationId: 'createKey',
    method: 'POST',
    path: '/admin/v1/keys',
    status: 201,
    scope: 'keys:write',
    pathParams: [],
    query: [],
    requiredQuery: [],
    body: 'json',
    csv: false,
  },
  {
    operationId: 'listKeys',
    method: 'GET',
    path: '/admin/v1/keys',
    status: 200,
    scope: 'accounts:read',
    pathParams: [],
    query: ['grantId', 'accountId', 'limit', 'cursor'],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'getKey',
    method: 'GET',
    path: '/admin/v1/keys/{publicId}',
    status: 200,
    scope: 'accounts:read',
    pathParams: ['publicId'],
    query: [],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'revokeKey',
    method: 'POST',
    path: '/admin/v1/keys/{publicId}/revoke',
    status: 200,
    scope: 'keys:write',
    pathParams: ['publicId'],
    query: [],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'rollKey',
    method: 'POST',
    path: '/admin/v1/keys/{publicId}/roll',
    status: 201,
    scope: 'keys:write',
    pathParams: ['publicId'],
    query: [],
    requiredQuery: [],
    body: 'json',
    csv: false,
  },
  {
    operationId: 'listAudit',
    method: 'GET',
    path: '/admin/v1/audit',
    status: 200,
    scope: 'audit:read',
    pathParams: [],
    query: ['actor', 'targetId', 'action', 'from', 'to', 'limit', 'cursor'],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'retractObservation',
    method: 'POST',
    path: '/admin/v1/data/retractions',
    status: 200,
    scope: 'data:write',
    pathParams: [],
    query: [],
    requiredQuery: [],
    body: 'json',
    csv: false,
  },
  {
    operationId: 'getGrantDailyUsage',
    method: 'GET',
    path: '/admin/v1/grants/{id}/usage/daily',
    status: 200,
    scope: 'usage:read',
    pathParams: ['id'],
    query: ['from', 'to'],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'getUsageStatement',
    method: 'GET',
    path: '/admin/v1/usage/statement',
    status: 200,
    scope: 'usage:read',
    pathParams: [],
    query: ['month'],
    requiredQuery: [],
    body: 'none',
    csv: true,
  },
  {
    operationId: 'createWebhook',
    method: 'POST',
    path: '/admin/v1/webhooks',
    status: 201,
    scope: 'webhooks:write',
    pathParams: [],
    query: [],
    requiredQuery: [],
    body: 'json',
    csv: false,
  },
  {
    operationId: 'listWebhooks',
    method: 'GET',
    path: '/admin/v1/webhooks',
    status: 200,
    scope: 'webhooks:write',
    pathParams: [],
    query: ['accountId', 'limit', 'cursor'],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'getWebhook',
    method: 'GET',
    path: '/admin/v1/webhooks/{id}',
    status: 200,
    scope: 'webhooks:write',
    pathParams: ['id'],
    query: [],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'updateWebhook',
    method: 'PATCH',
    path: '/admin/v1/webhooks/{id}',
    status: 200,
    scope: 'webhooks:write',
    pathParams: ['id'],
    query: [],
    requiredQuery: [],
    body: 'json',
    csv: false,
  },
  {
    operationId: 'deleteWebhook',
    method: 'DELETE',
    path: '/admin/v1/webhooks/{id}',
    status: 204,
    scope: 'webhooks:write',
    pathParams: ['id'],
    query: [],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'rotateWebhookSecret',
    method: 'POST',
    path: '/admin/v1/webhooks/{id}/rotate-secret',
    status: 200,
    scope: 'webhooks:write',
    pathParams: ['id'],
    query: [],
    requiredQuery: [],
    body: 'json',
    csv: false,
  },
  {
    operationId: 'listWebhookDeliveries',
    method: 'GET',
    path: '/admin/v1/webhooks/{id}/deliveries',
    status: 200,
    scope: 'webhooks:write',
    pathParams: ['id'],
    query: ['limit', 'cursor'],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'redeliverWebhook',
    method: 'POST',
    path: '/admin/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver',
    status: 202,
    scope: 'webhooks:write',
    pathParams: ['id', 'deliveryId'],
    query: [],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'createOrganisation',
    method: 'POST',
    path: '/admin/v1/organisations',
    status: 201,
    scope: 'reporters:write',
    pathParams: [],
    query: [],
    requiredQuery: [],
    body: 'json',
    csv: false,
  },
  {
    operationId: 'listOrganisations',
    method: 'GET',
    path: '/admin/v1/organisations',
    status: 200,
    scope: 'reporters:write',
    pathParams: [],
    query: ['limit', 'cursor'],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'createReporter',
    method: 'POST',
    path: '/admin/v1/reporters',
    status: 201,
    scope: 'reporters:write',
    pathParams: [],
    query: [],
    requiredQuery: [],
    body: 'json',
    csv: false,
  },
  {
    operationId: 'listReporters',
    method: 'GET',
    path: '/admin/v1/reporters',
    status: 200,
    scope: 'reporters:write',
    pathParams: [],
    query: ['limit', 'cursor', 'organisationId'],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'getReporter',
    method: 'GET',
    path: '/admin/v1/reporters/{id}',
    status: 200,
    scope: 'reporters:write',
    pathParams: ['id'],
    query: [],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'updateReporter',
    method: 'PATCH',
    path: '/admin/v1/reporters/{id}',
    status: 200,
    scope: 'reporters:write',
    pathParams: ['id'],
    query: [],
    requiredQuery: [],
    body: 'json',
    csv: false,
  },
  {
    operationId: 'getReporterStatistics',
    method: 'GET',
    path: '/admin/v1/reporters/{id}/stats',
    status: 200,
    scope: 'reporters:write',
    pathParams: ['id'],
    query: [],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'removeReporter',
    method: 'POST',
    path: '/admin/v1/reporters/{id}/remove',
    status: 200,
    scope: 'reporters:write',
    pathParams: ['id'],
    query: [],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'rollReporterToken',
    method: 'POST',
    path: '/admin/v1/reporters/{id}/roll',
    status: 200,
    scope: 'reporters:write',
    pathParams: ['id'],
    query: [],
    requiredQuery: [],
    body: 'json',
    csv: false,
  },
  {
    operationId: 'explainConsensus',
    method: 'GET',
    path: '/admin/v1/consensus/explain',
    status: 200,
    scope: 'reporters:write',
    pathParams: [],
    query: ['currency', 'purity', 'at'],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'verifyConsensus',
    method: 'GET',
    path: '/admin/v1/consensus/verify',
    status: 200,
    scope: 'reporters:write',
    pathParams: [],
    query: ['since'],
    requiredQuery: [],
    body: 'none',
    csv: false,
  },
  {
    operationId: 'updateAdminToken',
    method: 'PATCH',
    path: '/admin/v1/admin-tokens/{publicId}',
    status: 200,
    scope: 'admin-tokens:write',
    pathParams: ['publicId'],
    query: [],
    requiredQuery: [],
    body: 'json',
    csv: false,
  },
  {
    operationId: 'importData',
    method: 'POST',
    path: '/admin/v1/data/{kind}',
    status: 200,
    scope: 'data:write',
    pathParams: ['kind'],
    query: ['dryRun', 'maxChange', 'acceptOutliers', 'reinstate', 'timezone', 'dateOrder'],
    requiredQuery: [],
    body: 'text',
    csv: false,
  },
] as const;

/** The types of every admin operation, by operationId. */
export interface AdminOperations {
  createAccount: {
    method: 'POST';
    path: '/admin/v1/accounts';
    params: Record<string, never>;
    query: Record<string, never>;
    body: CreateAccountBody;
    response: CreateAccountResponse;
  };
  listAccounts: {
    method: 'GET';
    path: '/admin/v1/accounts';
    params: Record<string, never>;
    query: ListAccountsQuery;
    body: undefined;
    response: ListAccountsResponse;
  };
  getAccount: {
    method: 'GET';
    path: '/admin/v1/accounts/{id}';
    params: GetAccountParams;
    query: Record<string, never>;
    body: undefined;
    response: GetAccountResponse;
  };
  updateAccount: {
    method: 'PATCH';
    path: '/admin/v1/accounts/{id}';
    params: UpdateAccountParams;
    query: Record<string, never>;
    body: UpdateAccountBody;
    response: UpdateAccountResponse;
  };
  createGrant: {
    method: 'POST';
    path: '/admin/v1/grants';
    params: Record<string, never>;
    query: Record<string, never>;
    body: CreateGrantBody;
    response: CreateGrantResponse;
  };
  listGrants: {
    method: 'GET';
    path: '/admin/v1/grants';
    params: Record<string, never>;
    query: ListGrantsQuery;
    body: undefined;
    response: ListGrantsResponse;
  };
  getGrant: {
    method: 'GET';
    path: '/admin/v1/grants/{id}';
    params: GetGrantParams;
    query: Record<string, never>;
    body: undefined;
    response: GetGrantResponse;
  };
  updateGrant: {
    method: 'PATCH';
    path: '/admin/v1/grants/{id}';
    params: UpdateGrantParams;
    query: Record<string, never>;
    body: UpdateGrantBody;
    response: UpdateGrantResponse;
  };
  createKey: {
    method: 'POST';
    path: '/admin/v1/keys';
    params: Record<string, never>;
    query: Record<string, never>;
    body: CreateKeyBody;
    response: CreateKeyResponse;
  };
  listKeys: {
    method: 'GET';
    path: '/admin/v1/keys';
    params: Record<string, never>;
    query: ListKeysQuery;
    body: undefined;
    response: ListKeysResponse;
  };
  getKey: {
    method: 'GET';
    path: '/admin/v1/keys/{publicId}';
    params: GetKeyParams;
    query: Record<string, never>;
    body: undefined;
    response: GetKeyResponse;
  };
  revokeKey: {
    method: 'POST';
    path: '/admin/v1/keys/{publicId}/revoke';
    params: RevokeKeyParams;
    query: Record<string, never>;
    body: undefined;
    response: RevokeKeyResponse;
  };
  rollKey: {
    method: 'POST';
    path: '/admin/v1/keys/{publicId}/roll';
    params: RollKeyParams;
    query: Record<string, never>;
    body: RollKeyBody;
    response: RollKeyResponse;
  };
  listAudit: {
    method: 'GET';
    path: '/admin/v1/audit';
    params: Record<string, never>;
    query: ListAuditQuery;
    body: undefined;
    response: ListAuditResponse;
  };
  retractObservation: {
    method: 'POST';
    path: '/admin/v1/data/retractions';
    params: Record<string, never>;
    query: Record<string, never>;
    body: RetractObservationBody;
    response: RetractObservationResponse;
  };
  getGrantDailyUsage: {
    method: 'GET';
    path: '/admin/v1/grants/{id}/usage/daily';
    params: GetGrantDailyUsageParams;
    query: GetGrantDailyUsageQuery;
    body: undefined;
    response: GetGrantDailyUsageResponse;
  };
  getUsageStatement: {
    method: 'GET';
    path: '/admin/v1/usage/statement';
    params: Record<string, never>;
    query: GetUsageStatementQuery;
    body: undefined;
    response: GetUsageStatementResponse;
  };
  createWebhook: {
    method: 'POST';
    path: '/admin/v1/webhooks';
    params: Record<string, never>;
    query: Record<string, never>;
    body: CreateWebhookBody;
    response: CreateWebhookResponse;
  };
  listWebhooks: {
    method: 'GET';
    path: '/admin/v1/webhooks';
    params: Record<string, never>;
    query: ListWebhooksQuery;
    body: undefined;
    response: ListWebhooksResponse;
  };
  getWebhook: {
    method: 'GET';
    path: '/admin/v1/webhooks/{id}';
    params: GetWebhookParams;
    query: Record<string, never>;
    body: undefined;
    response: GetWebhookResponse;
  };
  updateWebhook: {
    method: 'PATCH';
    path: '/admin/v1/webhooks/{id}';
    params: UpdateWebhookParams;
    query: Record<string, never>;
    body: UpdateWebhookBody;
    response: UpdateWebhookResponse;
  };
  deleteWebhook: {
    method: 'DELETE';
    path: '/admin/v1/webhooks/{id}';
    params: DeleteWebhookParams;
    query: Record<string, never>;
    body: undefined;
    response: DeleteWebhookResponse;
  };
  rotateWebhookSecret: {
    method: 'POST';
    path: '/admin/v1/webhooks/{id}/rotate-secret';
    params: RotateWebhookSecretParams;
    query: Record<string, never>;
    body: RotateWebhookSecretBody;
    response: RotateWebhookSecretResponse;
  };
  listWebhookDeliveries: {
    method: 'GET';
    path: '/admin/v1/webhooks/{id}/deliveries';
    params: ListWebhookDeliveriesParams;
    query: ListWebhookDeliveriesQuery;
    body: undefined;
    response: ListWebhookDeliveriesResponse;
  };
  redeliverWebhook: {
    method: 'POST';
    path: '/admin/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver';
    params: RedeliverWebhookParams;
    query: Record<string, never>;
    body: undefined;
    response: RedeliverWebhookResponse;
  };
  createOrganisation: {
    method: 'POST';
    path: '/admin/v1/organisations';
    params: Record<string, never>;
    query: Record<string, never>;
    body: CreateOrganisationBody;
    response: CreateOrganisationResponse;
  };
  listOrganisations: {
    method: 'GET';
    path: '/admin/v1/organisations';
    params: Record<string, never>;
    query: ListOrganisationsQuery;
    body: undefined;
    response: ListOrganisationsResponse;
  };
  createReporter: {
    method: 'POST';
    path: '/admin/v1/reporters';
    params: Record<string, never>;
    query: Record<string, never>;
    body: CreateReporterBody;
    response: CreateReporterResponse;
  };
  listReporters: {
    method: 'GET';
    path: '/admin/v1/reporters';
    params: Record<string, never>;
    query: ListReportersQuery;
    body: undefined;
    response: ListReportersResponse;
  };
  getReporter: {
    method: 'GET';
    path: '/admin/v1/reporters/{id}';
    params: GetReporterParams;
    query: Record<string, never>;
    body: undefined;
    response: GetReporterResponse;
  };
  updateReporter: {
    method: 'PATCH';
    path: '/admin/v1/reporters/{id}';
    params: UpdateReporterParams;
    query: Record<string, never>;
    body: UpdateReporterBody;
    response: UpdateReporterResponse;
  };
  getReporterStatistics: {
    method: 'GET';
    path: '/admin/v1/reporters/{id}/stats';
    params: GetReporterStatisticsParams;
    query: Record<string, never>;
    body: undefined;
    response: GetReporterStatisticsResponse;
  };
  removeReporter: {
    method: 'POST';
    path: '/admin/v1/reporters/{id}/remove';
    params: RemoveReporterParams;
    query: Record<string, never>;
    body: undefined;
    response: RemoveReporterResponse;
  };
  rollReporterToken: {
    method: 'POST';
    path: '/admin/v1/reporters/{id}/roll';
    params: RollReporterTokenParams;
    query: Record<string, never>;
    body: RollReporterTokenBody;
    response: RollReporterTokenResponse;
  };
  explainConsensus: {
    method: 'GET';
    path: '/admin/v1/consensus/explain';
    params: Record<string, never>;
    query: ExplainConsensusQuery;
    body: undefined;
    response: ExplainConsensusResponse;
  };
  verifyConsensus: {
    method: 'GET';
    path: '/admin/v1/consensus/verify';
    params: Record<string, never>;
    query: VerifyConsensusQuery;
    body: undefined;
    response: VerifyConsensusResponse;
  };
  updateAdminToken: {
    method: 'PATCH';
    path: '/admin/v1/admin-tokens/{publicId}';
    params: UpdateAdminTokenParams;
    query: Record<string, never>;
    body: UpdateAdminTokenBody;
    response: UpdateAdminTokenResponse;
  };
  importData: {
    method: 'POST';
    path: '/admin/v1/data/{kind}';
    params: ImportDataParams;
    query: ImportDataQuery;
    body: string;
    response: ImportDataResponse;
  };
}

/** Options of every admin call. */
export interface AdminRequestOptions {
  /** Aborts the request, and any wait before a retry. */
  signal?: AbortSignal;
}

/** Options of a POST, PATCH or DELETE. */
export interface AdminWriteOptions extends AdminRequestOptions {
  /**
   * Sent as `Idempotency-Key`: the same key with the same request replays the first answer for 24
   * hours; with another request it is a 409 `idempotency_key_reused`. A call with one is retried
   * after a 429, a 503 or `idempotency_key_in_progress`; one without is never retried.
   */
  idempotencyKey?: string;
}

/** Options of an operation whose body is text (a data import). */
export interface AdminTextBodyOptions extends AdminWriteOptions {
  /** The body's format. @default "application/x-ndjson" */
  contentType?: 'application/x-ndjson' | 'application/json' | 'text/csv';
}

/**
 * One method per admin operation, named after its operationId; MdsAdminClient (admin.ts) gives
 * the transport.
 */
export abstract class AdminOperationMethods {
  protected abstract request<K extends keyof AdminOperations>(
    operationId: K,
    params: Record<string, string>,
    query: object | undefined,
    body: unknown,
    options: AdminTextBodyOptions | undefined,
  ): Promise<AdminOperations[K]['response']>;

  protected abstract requestCsv(
    operationId: keyof AdminOperations,
    params: Record<string, string>,
    query: object | undefined,
    body: unknown,
    options: AdminRequestOptions | undefined,
  ): Promise<string>;

  /**
   * `POST /admin/v1/accounts`: Create an account (`createAccount`). Requires the scope `accounts:write`.
   * `options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).
   */
  createAccount(body?: CreateAccountBody, options?: AdminWriteOptions): Promise<CreateAccountResponse> {
    return this.request('createAccount', {}, undefined, body, options);
  }

  /** `GET /admin/v1/accounts`: List accounts (`listAccounts`). Requires the scope `accounts:read`. */
  listAccounts(query?: ListAccountsQuery, options?: AdminRequestOptions): Promise<ListAccountsResponse> {
    return this.request('listAccounts', {}, query, undefined, options);
  }

  /** `GET /admin/v1/accounts/{id}`: Get an account (`getAccount`). Requires the scope `accounts:read`. */
  getAccount(id: GetAccountParams['id'], options?: AdminRequestOptions): Promise<GetAccountResponse> {
    return this.request('getAccount', { id }, undefined, undefined, options);
  }

  /**
   * `PATCH /admin/v1/accounts/{id}`: Change an account (`updateAccount`). Requires the scope `accounts:write`.
   * `options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).
   */
  updateAccount(
    id: UpdateAccountParams['id'],
    body?: UpdateAccountBody,
    options?: AdminWriteOptions,
  ): Promise<UpdateAccountResponse> {
    return this.request('updateAccount', { id }, undefined, body, options);
  }

  /**
   * `POST /admin/v1/grants`: Create a grant (`createGrant`). Requires the scope `accounts:write`.
   * `options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).
   */
  createGrant(body: CreateGrantBody, options?: AdminWriteOptions): Promise<CreateGrantResponse> {
    return this.request('createGrant', {}, undefined, body, options);
  }

  /** `GET /admin/v1/grants`: List grants (`listGrants`). Requires the scope `accounts:read`. */
  listGrants(query?: ListGrantsQuery, options?: AdminRequestOptions): Promise<ListGrantsResponse> {
    return this.request('listGrants', {}, query, undefined, options);
  }

  /** `GET /admin/v1/grants/{id}`: Get a grant (`getGrant`). Requires the scope `accounts:read`. */
  getGrant(id: GetGrantParams['id'], options?: AdminRequestOptions): Promise<GetGrantResponse> {
    return this.request('getGrant', { id }, undefined, undefined, options);
  }

  /**
   * `PATCH /admin/v1/grants/{id}`: Change a grant (`updateGrant`). Requires the scope `accounts:write`.
   * `options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).
   */
  updateGrant(
    id: UpdateGrantParams['id'],
    body?: UpdateGrantBody,
    options?: AdminWriteOptions,
  ): Promise<UpdateGrantResponse> {
    return this.request('updateGrant', { id }, undefined, body, options);
  }

  /**
   * `POST /admin/v1/keys`: Create a key (`createKey`). Requires the scope `keys:write`.
   * `options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).
   */
  createKey(body: CreateKeyBody, options?: AdminWriteOptions): Promise<CreateKeyResponse> {
    return this.request('createKey', {}, undefined, body, options);
  }

  /** `GET /admin/v1/keys`: List keys (`listKeys`). Requires the scope `accounts:read`. */
  listKeys(query?: ListKeysQuery, options?: AdminRequestOptions): Promise<ListKeysResponse> {
    return this.request('listKeys', {}, query, undefined, options);
  }

  /** `GET /admin/v1/keys/{publicId}`: Get a key (`getKey`). Requires the scope `accounts:read`. */
  getKey(publicId: GetKeyParams['publicId'], options?: AdminRequestOptions): Promise<GetKeyResponse> {
    return this.request('getKey', { publicId }, undefined, undefined, options);
  }

  /**
   * `POST /admin/v1/keys/{publicId}/revoke`: Revoke a key (`revokeKey`). Requires the scope `keys:write`.
   * `options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).
   */
  revokeKey(publicId: RevokeKeyParams['publicId'], options?: AdminWriteOptions): Promise<RevokeKeyResponse> {
    return this.request('revokeKey', { publicId }, undefined, undefined, options);
  }

  /**
   * `POST /admin/v1/keys/{publicId}/roll`: Roll a key (`rollKey`). Requires the scope `keys:write`.
   * `options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).
   */
  rollKey(
    publicId: RollKeyParams['publicId'],
    body?: RollKeyBody,
    options?: AdminWriteOptions,
  ): Promise<RollKeyResponse> {
    return this.request('rollKey', { publicId }, undefined, body, options);
  }

  /** `GET /admin/v1/audit`: Read the audit log (`listAudit`). Requires the scope `audit:read`. */
  listAudit(query?: ListAuditQuery, options?: AdminRequestOptions): Promise<ListAuditResponse> {
    return this.request('listAudit', {}, query, undefined, options);
  }

  /**
   * `POST /admin/v1/data/retractions`: Retract an observation (`retractObservation`). Requires the scope `data:write`.
   * `options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).
   */
  retractObservation(
    body: RetractObservationBody,
    options?: AdminWriteOptions,
  ): Promise<RetractObservationResponse> {
    return this.request('retractObservation', {}, undefined, body, options);
  }

  /**
   * `GET /admin/v1/grants/{id}/usage/daily`: A grant’s daily usage (`getGrantDailyUsage`). Requires the scope `usage:read`.
   */
  getGrantDailyUsage(
    id: GetGrantDailyUsageParams['id'],
    query?: GetGrantDailyUsageQuery,
    options?: AdminRequestOptions,
  ): Promise<GetGrantDailyUsageResponse> {
    return this.request('getGrantDailyUsage', { id }, query, undefined, options);
  }

  /**
   * `GET /admin/v1/usage/statement`: The month’s usage statement (`getUsageStatement`). Requires the scope `usage:read`.
   */
  getUsageStatement(
    query?: GetUsageStatementQuery,
    options?: AdminRequestOptions,
  ): Promise<GetUsageStatementResponse> {
    return this.request('getUsageStatement', {}, query, undefined, options);
  }

  /**
   * `GET /admin/v1/usage/statement`: The month’s usage statement as CSV text (`Accept: text/csv`): a header row, then one record a line (CRLF line ends, RFC 4180 quoting, nested fields joined with `_`). Requires the scope `usage:read`.
   */
  getUsageStatementCsv(query?: GetUsageStatementQuery, options?: AdminRequestOptions): Promise<string> {
    return this.requestCsv('getUsageStatement', {}, query, undefined, options);
  }

  /**
   * `POST /admin/v1/webhooks`: Create a webhook subscription (`createWebhook`). Requires the scope `webhooks:write`.
   * `options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).
   */
  createWebhook(body: CreateWebhookBody, options?: AdminWriteOptions): Promise<CreateWebhookResponse> {
    return this.request('createWebhook', {}, undefined, body, options);
  }

  /**
   * `GET /admin/v1/webhooks`: List webhook subscriptions (`listWebhooks`). Requires the scope `webhooks:write`.
   */
  listWebhooks(query?: ListWebhooksQuery, options?: AdminRequestOptions): Promise<ListWebhooksResponse> {
    return this.request('listWebhooks', {}, query, undefined, options);
  }

  /**
   * `GET /admin/v1/webhooks/{id}`: Get a webhook subscription (`getWebhook`). Requires the scope `webhooks:write`.
   */
  getWebhook(id: GetWebhookParams['id'], options?: AdminRequestOptions): Promise<GetWebhookResponse> {
    return this.request('getWebhook', { id }, undefined, undefined, options);
  }

  /**
   * `PATCH /admin/v1/webhooks/{id}`: Change a webhook subscription (`updateWebhook`). Requires the scope `webhooks:write`.
   * `options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).
   */
  updateWebhook(
    id: UpdateWebhookParams['id'],
    body?: UpdateWebhookBody,
    options?: AdminWriteOptions,
  ): Promise<UpdateWebhookResponse> {
    return this.request('updateWebhook', { id }, undefined, body, options);
  }

  /**
   * `DELETE /admin/v1/webhooks/{id}`: Delete a webhook subscription (`deleteWebhook`). Requires the scope `webhooks:write`.
   * `options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).
   */
  deleteWebhook(id: DeleteWebhookParams['id'], options?: AdminWriteOptions): Promise<DeleteWebhookResponse> {
    return this.request('deleteWebhook', { id }, undefined, undefined, options);
  }

  /**
   * `POST /admin/v1/webhooks/{id}/rotate-secret`: Rotate a webhook subscription’s secret (`rotateWebhookSecret`). Requires the scope `webhooks:write`.
   * `options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).
   */
  rotateWebhookSecret(
    id: RotateWebhookSecretParams['id'],
    body?: RotateWebhookSecretBody,
    options?: AdminWriteOptions,
  ): Promise<RotateWebhookSecretResponse> {
    return this.request('rotateWebhookSecret', { id }, undefined, body, options);
  }

  /**
   * `GET /admin/v1/webhooks/{id}/deliveries`: List a webhook subscription’s deliveries (`listWebhookDeliveries`). Requires the scope `webhooks:write`.
   */
  listWebhookDeliveries(
    id: ListWebhookDeliveriesParams['id'],
    query?: ListWebhookDeliveriesQuery,
    options?: AdminRequestOptions,
  ): Promise<ListWebhookDeliveriesResponse> {
    return this.request('listWebhookDeliveries', { id }, query, undefined, options);
  }

  /**
   * `POST /admin/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver`: Deliver an event again (`redeliverWebhook`). Requires the scope `webhooks:write`.
   * `options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).
   */
  redeliverWebhook(
    id: RedeliverWebhookParams['id'],
    deliveryId: RedeliverWebhookParams['deliveryId'],
    options?: AdminWriteOptions,
  ): Promise<RedeliverWebhookResponse> {
    return this.request('redeliverWebhook', { id, deliveryId }, undefined, undefined, options);
  }

  /**
   * `POST /admin/v1/organisations`: Create an organisation (`createOrganisation`). Requires the scope `reporters:write`.
   * `options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).
   */
  createOrganisation(
    body: CreateOrganisationBody,
    options?: AdminWriteOptions,
  ): Promise<CreateOrganisationResponse> {
    return this.request('createOrganisation', {}, undefined, body, options);
  }

  /**
   * `GET /admin/v1/organisations`: List organisations (`listOrganisations`). Requires the scope `reporters:write`.
   */
  listOrganisations(
    query?: ListOrganisationsQuery,
    options?: AdminRequestOptions,
  ): Promise<ListOrganisationsResponse> {
    return this.request('listOrganisations', {}, query, undefined, options);
  }

  /**
   * `POST /admin/v1/reporters`: Create a reporter (`createReporter`). Requires the scope `reporters:write`.
   * `options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).
   */
  createReporter(body: CreateReporterBody, options?: AdminWriteOptions): Promise<CreateReporterResponse> {
    return this.request('createReporter', {}, undefined, body, options);
  }

  /** `GET /admin/v1/reporters`: List reporters (`listReporters`). Requires the scope `reporters:write`. */
  listReporters(query?: ListReportersQuery, options?: AdminRequestOptions): Promise<ListReportersResponse> {
    return this.request('listReporters', {}, query, undefined, options);
  }

  /** `GET /admin/v1/reporters/{id}`: Get a reporter (`getReporter`). Requires the scope `reporters:write`. */
  getReporter(id: GetReporterParams['id'], options?: AdminRequestOptions): Promise<GetReporterResponse> {
    return this.request('getReporter', { id }, undefined, undefined, options);
  }

  /**
   * `PATCH /admin/v1/reporters/{id}`: Change a reporter (`updateReporter`). Requires the scope `reporters:write`.
   * `options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).
   */
  updateReporter(
    id: UpdateReporterParams['id'],
    body?: UpdateReporterBody,
    options?: AdminWriteOptions,
  ): Promise<UpdateReporterResponse> {
    return this.request('updateReporter', { id }, undefined, body, options);
  }

  /**
   * `GET /admin/v1/reporters/{id}/stats`: A reporter’s statistics (`getReporterStatistics`). Requires the scope `reporters:write`.
   */
  getReporterStatistics(
    id: GetReporterStatisticsParams['id'],
    options?: AdminRequestOptions,
  ): Promise<GetReporterStatisticsResponse> {
    return this.request('getReporterStatistics', { id }, undefined, undefined, options);
  }

  /**
   * `POST /admin/v1/reporters/{id}/remove`: Remove a reporter (`removeReporter`). Requires the scope `reporters:write`.
   * `options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).
   */
  removeReporter(
    id: RemoveReporterParams['id'],
    options?: AdminWriteOptions,
  ): Promise<RemoveReporterResponse> {
    return this.request('removeReporter', { id }, undefined, undefined, options);
  }

  /**
   * `POST /admin/v1/reporters/{id}/roll`: Roll a reporter’s token (`rollReporterToken`). Requires the scope `reporters:write`.
   * `options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).
   */
  rollReporterToken(
    id: RollReporterTokenParams['id'],
    body?: RollReporterTokenBody,
    options?: AdminWriteOptions,
  ): Promise<RollReporterTokenResponse> {
    return this.request('rollReporterToken', { id }, undefined, body, options);
  }

  /**
   * `GET /admin/v1/consensus/explain`: Explain a published consensus point (`explainConsensus`). Requires the scope `reporters:write`.
   */
  explainConsensus(
    query?: ExplainConsensusQuery,
    options?: AdminRequestOptions,
  ): Promise<ExplainConsensusResponse> {
    return this.request('explainConsensus', {}, query, undefined, options);
  }

  /**
   * `GET /admin/v1/consensus/verify`: Recompute the published consensus points (`verifyConsensus`). Requires the scope `reporters:write`.
   */
  verifyConsensus(
    query?: VerifyConsensusQuery,
    options?: AdminRequestOptions,
  ): Promise<VerifyConsensusResponse> {
    return this.request('verifyConsensus', {}, query, undefined, options);
  }

  /**
   * `PATCH /admin/v1/admin-tokens/{publicId}`: Change an admin token’s scopes (`updateAdminToken`). Requires the scope `admin-tokens:write`.
   * `options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).
   */
  updateAdminToken(
    publicId: UpdateAdminTokenParams['publicId'],
    body: UpdateAdminTokenBody,
    options?: AdminWriteOptions,
  ): Promise<UpdateAdminTokenResponse> {
    return this.request('updateAdminToken', { publicId }, undefined, body, options);
  }

  /**
   * `POST /admin/v1/data/{kind}`: Import market data (`importData`). Requires the scope `data:write`.
   * `options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).
   */
  importData(
    kind: ImportDataParams['kind'],
    body: string,
    query?: ImportDataQuery,
    options?: AdminTextBodyOptions,
  ): Promise<ImportDataResponse> {
    return this.request('importData', { kind }, query, body, options);
  }
}
