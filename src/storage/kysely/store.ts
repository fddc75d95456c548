/**
 * A Store built from the Kysely queries both backends share (database.ts,
 * market.ts, access.ts, usage.ts) and the parts a backend writes itself
 * (BackendParts: bulk imports, the commits on the request path, reads it runs
 * on a raw connection for speed). Every Store method is defined once, here or
 * by the backend, never both; every failure the backend's driver reports as
 * an outage leaves as StoreUnavailableError (errors.ts).
 */
import type { RateObservation } from '../../domain/types.js';
import { guarded, type UnavailableTest } from '../errors.js';
import type { ImportOutcome } from '../import-records.js';
import type { ObservationBatch } from '../observations.js';
import type {
  ConsumeOutcome,
  ConsumeRequest,
  ImportOptions,
  RateHistoryQuery,
  Store,
  StoreDialect,
  UsageIncrement,
} from '../store.js';
import * as access from './access.js';
import { type Db, migrate, ping, setting, versions } from './database.js';
import * as imports from './imports.js';
import * as market from './market.js';
import * as usage from './usage.js';

export interface BackendParts {
  /** Rates and gold, in bulk: each dialect has its own fastest way. */
  importObservations(batch: ObservationBatch, options: ImportOptions): Promise<ImportOutcome>;
  rateHistory(query: RateHistoryQuery): Promise<RateObservation[]>;
  touchKeys(uses: ReadonlyArray<{ publicId: string; at: number }>): Promise<void>;
  addUsage(increments: readonly UsageIncrement[], now: number): Promise<void>;
  consumeUsage(requests: readonly ConsumeRequest[], now: number): Promise<ConsumeOutcome[]>;
  /** Releases what the backend holds, then the Kysely handle. */
  close(): Promise<void>;
}

export function kyselyStore(
  dialect: StoreDialect,
  db: Db,
  own: BackendParts,
  unavailable: UnavailableTest,
): Store {
  const store: Store = {
    dialect,
    migrate: () => migrate(db, dialect),
    ping: () => ping(db),
    close: () => own.close(),
    versions: () => versions(db),
    setting: (name) => setting(db, name),

    listAssets: () => market.listAssets(db),
    latestRates: () => market.latestRates(db),
    rateHistory: (q) => own.rateHistory(q),
    dailyRates: (q) => market.dailyRates(db, q),
    latestGold: () => market.latestGold(db),
    goldHistory: (q) => market.goldHistory(db, q),
    unknownAssets: (codes) => market.unknownAssets(db, codes),
    import: (batch, options = {}) =>
      batch.kind === 'assets'
        ? market.importAssets(db, batch.records, options)
        : own.importObservations(batch, options),
    seriesAround: (series, from, to) => imports.seriesAround(db, series, from, to),
    listImports: (limit) => imports.listImports(db, limit),
    listRevisions: (q) => imports.listRevisions(db, q),

    createAccount: (a) => access.createAccount(db, a),
    getAccount: (id) => access.getAccount(db, id),
    createGrant: (g) => access.createGrant(db, g),
    getGrant: (id) => access.getGrant(db, id),
    updateGrant: (id, patch, now) => access.updateGrant(db, id, patch, now),
    createKey: (k) => access.createKey(db, k),
    getKey: (publicId) => access.getKey(db, publicId),
    listKeys: (grantId) => access.listKeys(db, grantId),
    revokeKey: (publicId, now) => access.revokeKey(db, publicId, now),
    touchKeys: (uses) => own.touchKeys(uses),
    countAccounts: () => access.countAccounts(db),

    addUsage: (increments, now) => own.addUsage(increments, now),
    getUsage: (grantId, period) => usage.getUsage(db, grantId, period),
    consumeUsage: (requests, now) => own.consumeUsage(requests, now),
    getMinuteUsage: (grantId, window) => usage.getMinuteUsage(db, grantId, window),
    releaseMinute: (grantId, window, count) => usage.releaseMinute(db, grantId, window, count),
  };
  return guarded(store, unavailable);
}
