/**
 * The one storage interface. Two backends implement it (SQLite for the embedded
 * default, PostgreSQL for scale-out) and one contract suite tests both
 * (test/storage/contract.test.ts).
 */
import type { Asset, GoldObservation, Purity, RateObservation, Source } from '../domain/types.js';

import type {
  AccountRecord,
  AdminStore,
  AuditActor,
  GrantPatch,
  GrantRecord,
  KeyRecord,
  NewAccount,
  NewGrant,
} from './admin-records.js';
import type {
  ImportMeta,
  ImportOutcome,
  ImportRecord,
  Point,
  RevisionQuery,
  RevisionRecord,
  SeriesKey,
} from './import-records.js';
import type { UsageCommit, UsageRecordsStore } from './usage-records.js';
import type { WebhookStore } from './webhook-records.js';

export type StoreDialect = 'sqlite' | 'postgres';

// The operator's records live in admin-records.ts (with the AdminStore part of the interface).
export type {
  AccountRecord,
  AdminTokenRecord,
  AuditActor,
  GrantPatch,
  GrantRecord,
  GrantStatus,
  KeyRecord,
  NewAccount,
  NewGrant,
} from './admin-records.js';
export { DuplicateError, GrantCancelledError } from './admin-records.js';

export interface RateHistoryQuery {
  currency: string;
  source: Source;
  from: number;
  to: number;
  /** Keyset position: only records strictly older than this instant. */
  before?: number;
  limit: number;
}

/** A series over a window of instants, both ends included. */
export interface DailyRatesQuery {
  currency: string;
  source: Source;
  from: number;
  to: number;
}

export interface GoldHistoryQuery {
  from: number;
  to: number;
  /** Keyset position: the last record of the previous page. */
  after?: { updatedAt: number; purity: Purity };
  limit: number;
}

export type ImportBatch =
  | { kind: 'assets'; records: Asset[] }
  | { kind: 'rates'; records: RateObservation[] }
  | { kind: 'gold'; records: GoldObservation[] };

/**
 * Rates whose currency is not in the asset directory: the import is refused
 * whole, nothing written. (The CLI reports such records by line before it
 * calls the store; this is the store's own guarantee, checked in the import's
 * transaction.)
 */
export class UnknownAssetsError extends Error {
  readonly code = 'unknown_assets';
  constructor(readonly currencies: readonly string[]) {
    super(`not in the asset directory: ${currencies.join(', ')}`);
    this.name = 'UnknownAssetsError';
  }
}

export interface ImportOptions {
  /** Called as records are written (for a progress display); `done` ≤ `total`. */
  onProgress?: (done: number, total: number) => void;
  /** The import's record; without it the store records one by `system`. */
  meta?: ImportMeta;
  /** Everything but the write: the same counts and revisions, then rolled back. */
  dryRun?: boolean;
}

export interface UsageIncrement {
  grantId: string;
  period: string;
  count: number;
}

/** One grant's requests of a tick, for the store's own check-and-consume. */
export interface ConsumeRequest {
  grantId: string;
  /** The month counted (`YYYY-MM`) and the start of the minute window (epoch ms). */
  period: string;
  window: number;
  requestsPerMinute: number;
  monthlyRequestLimit: number;
  /** Requests waiting, in arrival order. */
  count: number;
  /** The key of each waiting request, in the same order: the day's counts are per key. */
  keyIds?: readonly string[];
}

export interface ConsumeOutcome {
  /** The window counted: the request's, or a later one another instance already opened. */
  window: number;
  /** Counts before this batch. */
  minuteUsed: number;
  monthUsed: number;
  /** How many of the batch's requests were let through (the first ones). */
  allowed: number;
}

/**
 * The check-and-consume rule every limiter applies to a grant's batch: its
 * requests taken one after the other, each let through while both counts are
 * under their limits. Where the counts live decides where the rule runs: here
 * for SQLite, in Lua for Redis (limits/redis-scripts.ts), in PL/pgSQL for the
 * store limiter on PostgreSQL (migrations/0009-consume-function.ts); the limiter contract
 * suite holds the three to one behaviour.
 */
export function allowedOf(
  count: number,
  rpm: number,
  minuteUsed: number,
  monthly: number,
  monthUsed: number,
): number {
  return Math.max(0, Math.min(count, rpm - minuteUsed, monthly - monthUsed));
}

export interface Versions {
  data: number;
  access: number;
}

/** Market data: the asset directory, rates and gold (kysely/market.ts, the bulk imports). */
export interface MarketStore {
  listAssets(): Promise<Asset[]>;
  /** Newest observation of every (currency, source) series. */
  latestRates(): Promise<RateObservation[]>;
  rateHistory(query: RateHistoryQuery): Promise<RateObservation[]>;
  /** The latest observation of each UTC day in the window on which the series has one, newest first. */
  dailyRates(query: DailyRatesQuery): Promise<RateObservation[]>;
  /** Newest record of every purity. */
  latestGold(): Promise<GoldObservation[]>;
  goldHistory(query: GoldHistoryQuery): Promise<GoldObservation[]>;
  /** Codes referenced by `records` that are not in the asset directory. */
  unknownAssets(codes: readonly string[]): Promise<string[]>;
  /**
   * All or nothing, idempotent: the same record twice changes nothing. Writes
   * the import's record and a revision for every observation it changes, in
   * the same transaction (decisions 51).
   */
  import(batch: ImportBatch, options?: ImportOptions): Promise<ImportOutcome>;
  /**
   * The stored observations of a series in [from, to], plus the latest one
   * before `from`: what the plausibility guards compare an import with.
   */
  seriesAround(series: SeriesKey, from: number, to: number): Promise<Point[]>;
  /** The newest `limit` import records, newest first. */
  listImports(limit: number): Promise<ImportRecord[]>;
  /** Newest first. */
  listRevisions(query: RevisionQuery): Promise<RevisionRecord[]>;
}

/**
 * Accounts, grants and keys (kysely/access.ts). Each change appends its audit
 * record in its transaction, by `actor` (SYSTEM_ACTOR when not given).
 */
export interface AccessStore {
  /** DuplicateError when another account has its externalId. */
  createAccount(account: NewAccount, actor?: AuditActor): Promise<void>;
  getAccount(id: string): Promise<AccountRecord | undefined>;
  /** DuplicateError when another grant of its provider has its externalId. */
  createGrant(grant: NewGrant, actor?: AuditActor): Promise<void>;
  getGrant(id: string): Promise<GrantRecord | undefined>;
  /** GrantCancelledError when it would reopen a cancelled grant. */
  updateGrant(
    id: string,
    patch: GrantPatch,
    now: number,
    actor?: AuditActor,
  ): Promise<GrantRecord | undefined>;
  createKey(key: KeyRecord, actor?: AuditActor): Promise<void>;
  getKey(publicId: string): Promise<KeyRecord | undefined>;
  listKeys(grantId?: string): Promise<KeyRecord[]>;
  revokeKey(publicId: string, now: number, actor?: AuditActor): Promise<KeyRecord | undefined>;
  /** Best-effort `lastUsedAt` updates; never moves a timestamp backwards. */
  touchKeys(uses: ReadonlyArray<{ publicId: string; at: number }>): Promise<void>;
  countAccounts(): Promise<number>;
}

/** Durable usage, and the store limiter's counts (kysely/usage.ts, each backend's commits). */
export interface UsageStore {
  /** One transaction: the months, and the days and batch id of `commit` (usage-records.ts). */
  addUsage(increments: readonly UsageIncrement[], now: number, commit?: UsageCommit): Promise<void>;
  getUsage(grantId: string, period: string): Promise<number>;
  /**
   * Checks both limits and consumes, in one transaction that serialises with
   * every other instance's (row locks on PostgreSQL, the write lock on SQLite):
   * per request, `allowed = min(count, rpm - minuteUsed, monthly - monthUsed)`,
   * and both counts grow by it. One entry per grant; outcomes in input order.
   */
  consumeUsage(requests: readonly ConsumeRequest[], now: number, batchId?: string): Promise<ConsumeOutcome[]>;
  /** The store limiter's minute count for `window` (0 when the stored window is another). */
  getMinuteUsage(grantId: string, window: number): Promise<number>;
  /** Takes `count` back from the minute count, if it still counts `window`. */
  releaseMinute(grantId: string, window: number, count: number): Promise<void>;
}

/**
 * Every method fails with StoreUnavailableError (errors.ts) when the backend
 * cannot serve now; other errors are bugs or refusals (UnknownAssetsError, DuplicateError).
 */
export interface Store
  extends MarketStore,
    AccessStore,
    AdminStore,
    UsageStore,
    UsageRecordsStore,
    WebhookStore {
  readonly dialect: StoreDialect;
  /** Applies pending migrations; returns the names applied. */
  migrate(): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Change counters: `data` moves on every import, `access` on every account change. */
  versions(): Promise<Versions>;
  setting(name: string): Promise<string | undefined>;
}
