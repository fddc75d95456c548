/**
 * Longer than 300 lines because it is one list: every table's shape, one
 * interface per table. Table shapes as Kysely sees them. Both dialects store money as BIGINT
 * micro-units and instants as BIGINT epoch milliseconds (see domain/decimal.ts):
 * integers compare, sort and round-trip exactly on SQLite and PostgreSQL alike.
 */
import type { Generated } from 'kysely';

export interface AssetsTable {
  code: string;
  symbol: string;
  type: string;
  name_en: string;
  name_fr: string;
  name_ar: string;
}

export interface RatesTable {
  currency: string;
  source: string;
  updated_at: number;
  buy: number;
  sell: number;
}

export interface GoldTable {
  purity: string;
  updated_at: number;
  buy: number;
  sell: number;
}

/** Change counters polled by every instance to refresh its caches. */
export interface VersionsTable {
  name: string;
  value: number;
}

export interface SettingsTable {
  name: string;
  value: string;
}

export interface AccountsTable {
  id: string;
  name: string | null;
  email: string | null;
  /** The billing system's customer id (0006): unique when not null. */
  external_id: string | null;
  created_at: number;
  /** 0006: the creation time for accounts made before it. */
  updated_at: number;
}

export interface GrantsTable {
  id: string;
  account_id: string;
  provider: string;
  /** The provider's id for the grant (0006): unique per provider when not null. */
  external_id: string | null;
  plan: string;
  status: string;
  /** Comma-separated, as given to the CLI (legacy umbrellas included). */
  scopes: string;
  valid_from: number;
  valid_until: number;
  monthly_request_limit: number;
  requests_per_minute: number;
  created_at: number;
  updated_at: number;
}

export interface ApiKeysTable {
  public_id: string;
  grant_id: string;
  environment: string;
  digest: string;
  label: string;
  /** Null: the key follows its grant's scopes. */
  scopes: string | null;
  status: string;
  expires_at: number | null;
  last_used_at: number | null;
  created_at: number;
  revoked_at: number | null;
}

export interface UsageTable {
  grant_id: string;
  period: string;
  used: number;
  updated_at: Generated<number>;
}

export interface MinuteUsageTable {
  grant_id: string;
  window_start: number;
  used: number;
}

/** One row per import that wrote (a dry run leaves none): decisions 51. */
export interface ImportsTable {
  id: string;
  kind: string;
  /** The file's base name, `stdin`, or what wrote it (`sample`). */
  source_name: string | null;
  format: string | null;
  /** `cli:<operating-system user>`, or an admin token's id. */
  actor: string;
  created_at: number;
  received: number;
  inserted: number;
  updated: number;
  unchanged: number;
  /** 1 when the file was imported with --accept-outliers. */
  accepted_outliers: number;
  /** Records that a guard would have refused (let through by --accept-outliers). */
  outliers: number;
  /** The change threshold in percent the import was checked with; null when no guard ran. */
  max_change_percent: number | null;
  /** JSON array: the source families imported (0008; `[]` before). */
  sources: string;
  newest_updated_at: number | null;
}

/** What a stored observation was before an import changed it: decisions 51. */
export interface RevisionsTable {
  import_id: string;
  /** Position within its import: with import_id, the key. */
  seq: number;
  kind: string;
  /** The currency (rates) or the purity (gold). */
  code: string;
  /** The rate source; `gold` for gold. */
  source: string;
  updated_at: number;
  old_buy: number;
  old_sell: number;
  new_buy: number;
  new_sell: number;
  revised_at: number;
}

/** Observations an operator took back (0012; docs/decisions.md, 105): what was published, and why. */
export interface RetractionsTable {
  id: string;
  kind: string;
  /** The currency (rates) or the purity (gold). */
  code: string;
  /** The rate source; `gold` for gold. */
  source: string;
  updated_at: number;
  buy: number;
  sell: number;
  reason: string;
  actor_id: string;
  actor_label: string;
  retracted_at: number;
  /** The import that brought the record back with `--reinstate`; null while it stands. */
  reinstated_by: string | null;
  reinstated_at: number | null;
}

/** The admin API's bearer tokens (0006): a digest, never the token. */
export interface AdminTokensTable {
  id: string;
  digest: string;
  label: string;
  /** Comma-separated. */
  scopes: string;
  status: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

/** Append-only (0006; triggers refuse an update or a delete): docs/decisions.md, 57. */
export interface AuditLogTable {
  id: string;
  at: number;
  actor_id: string;
  actor_label: string;
  action: string;
  target_id: string;
  /** JSON: `{ field: { before, after } }`. */
  changes: string;
  request_id: string | null;
}

/** The admin API's Idempotency-Key claims and the answers they replay (0006). */
export interface IdempotencyKeysTable {
  /** The admin token's public id. */
  actor: string;
  key: string;
  fingerprint: string;
  /** Null while the first request runs. */
  status: number | null;
  body: string | null;
  created_at: number;
  expires_at: number;
}

/** Webhook subscriptions (0008): docs/decisions.md, 68. */
export interface WebhookSubscriptionsTable {
  id: string;
  url: string;
  /** JSON array of event types. */
  event_types: string;
  account_id: string | null;
  /** JSON: a rate alert's condition. */
  filter: string | null;
  description: string | null;
  status: string;
  disabled_reason: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  alert_active: number;
  created_at: number;
  updated_at: number;
}

/** The outbox (0008): one row per event, its body as delivered. */
export interface WebhookEventsTable {
  id: string;
  type: string;
  account_id: string | null;
  created_at: number;
  payload: string;
  dedupe_key: string | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  subscription_id: string;
  event_id: string;
  status: string;
  attempts: number;
  round_start: number;
  next_attempt_at: number | null;
  claimed_until: number | null;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  n: number;
  at: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_prefix: string;
}

export interface OrganisationsTable {
  id: string;
  name: string;
  created_at: number;
  updated_at: number;
}

export interface ReportersTable {
  id: string;
  label: string;
  organisation_id: string;
  markets: string;
  status: string;
  created_at: number;
  updated_at: number;
}

export interface ReporterStatesTable {
  reporter_id: string;
  at: number;
  seq: number;
  status: string;
  organisation_id: string;
}

export interface ReporterTokensTable {
  id: string;
  reporter_id: string;
  digest: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
}

export interface QuotesTable {
  id: string;
  reporter_id: string;
  organisation_id: string;
  market: string;
  buy: number;
  sell: number;
  observed_at: number;
  received_at: number;
  /** min(observed_at, received_at): when the quote counts (docs/decisions.md 107). */
  effective_at: number;
  place: string | null;
}

export interface ConsensusMarketsTable {
  market: string;
  version: number;
  state: string;
  quorum_lost: number;
  last_at: number | null;
  last_buy: number | null;
  last_sell: number | null;
  retry_at: number | null;
  held_reason: string | null;
  computed_at: number;
}

export interface ConsensusPointsTable {
  market: string;
  at: number;
  method_version: number;
  buy: number;
  sell: number;
  organisations: number;
  reporters: number;
  excluded: number;
  dispersion: number | null;
  confidence: string;
  inputs: string;
}

export interface Database {
  assets: AssetsTable;
  rates: RatesTable;
  gold: GoldTable;
  versions: VersionsTable;
  settings: SettingsTable;
  accounts: AccountsTable;
  grants: GrantsTable;
  api_keys: ApiKeysTable;
  usage: UsageTable;
  minute_usage: MinuteUsageTable;
  imports: ImportsTable;
  revisions: RevisionsTable;
  retractions: RetractionsTable;
  admin_tokens: AdminTokensTable;
  audit_log: AuditLogTable;
  idempotency_keys: IdempotencyKeysTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  organisations: OrganisationsTable;
  reporters: ReportersTable;
  reporter_states: ReporterStatesTable;
  reporter_tokens: ReporterTokensTable;
  quotes: QuotesTable;
  consensus_markets: ConsensusMarketsTable;
  consensus_points: ConsensusPointsTable;
}
