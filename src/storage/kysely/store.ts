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
import type { BatchOutcome, UsageCommit } from '../usage-records.js';
import * as access from './access.js';
import * as admin from './admin.js';
import * as audit from './audit.js';
import { type Db, migrate, ping, setting, versions } from './database.js';
import * as imports from './imports.js';
import * as market from './market.js';
import * as usage from './usage.js';
import * as deliveries from './webhook-deliveries.js';
import * as sources from './webhook-sources.js';
import * as subscriptions from './webhook-subscriptions.js';
import * as webhooks from './webhooks.js';

export interface BackendParts {
  /** Rates and gold, in bulk: each dialect has its own fastest way. */
  importObservations(batch: ObservationBatch, options: ImportOptions): Promise<ImportOutcome>;
  rateHistory(query: RateHistoryQuery): Promise<RateObservation[]>;
  touchKeys(uses: ReadonlyArray<{ publicId: string; at: number }>): Promise<void>;
  addUsage(increments: readonly UsageIncrement[], now: number, commit?: UsageCommit): Promise<void>;
  consumeUsage(requests: readonly ConsumeRequest[], now: number, batchId?: string): Promise<ConsumeOutcome[]>;
  usageBatchOutcome(batchId: string, now: number): Promise<BatchOutcome>;
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

    createAccount: (a, actor) => access.createAccount(db, a, actor),
    getAccount: (id) => access.getAccount(db, id),
    createGrant: (g, actor) => access.createGrant(db, g, actor),
    getGrant: (id) => access.getGrant(db, id),
    updateGrant: (id, patch, now, actor) => access.updateGrant(db, id, patch, now, actor),
    createKey: (k, actor) => access.createKey(db, k, actor),
    getKey: (publicId) => access.getKey(db, publicId),
    listKeys: (grantId) => access.listKeys(db, grantId),
    revokeKey: (publicId, now, actor) => access.revokeKey(db, publicId, now, actor),
    touchKeys: (uses) => own.touchKeys(uses),
    countAccounts: () => access.countAccounts(db),

    updateAccount: (id, patch, now, actor) => access.updateAccount(db, id, patch, now, actor),
    listAccounts: (f, page) => admin.listAccounts(db, f, page),
    listGrants: (f, page) => admin.listGrants(db, f, page),
    listKeyItems: (f, page) => admin.listKeyItems(db, f, page),
    rollKey: (publicId, next, oldExpiresAt, now, actor) =>
      admin.rollKey(db, publicId, next, oldExpiresAt, now, actor),
    createAdminToken: (t, actor) => admin.createAdminToken(db, t, actor),
    getAdminToken: (id) => admin.getAdminToken(db, id),
    findAdminTokenByDigest: (digest) => admin.findAdminTokenByDigest(db, digest),
    listAdminTokens: (page) => admin.listAdminTokens(db, page),
    revokeAdminToken: (id, now, actor) => admin.revokeAdminToken(db, id, now, actor),
    touchAdminToken: (id, at) => admin.touchAdminToken(db, id, at),
    listAudit: (f, page) => audit.listAudit(db, f, page),
    claimIdempotencyKey: (actor, key, fingerprint, now, ttlMs) =>
      admin.claimIdempotencyKey(db, actor, key, fingerprint, now, ttlMs),
    completeIdempotencyKey: (actor, key, status, body) =>
      admin.completeIdempotencyKey(db, actor, key, status, body),
    releaseIdempotencyKey: (actor, key) => admin.releaseIdempotencyKey(db, actor, key),

    addUsage: (increments, now, commit) => own.addUsage(increments, now, commit),
    getUsage: (grantId, period) => usage.getUsage(db, grantId, period),
    consumeUsage: (requests, now, batchId) => own.consumeUsage(requests, now, batchId),
    getMinuteUsage: (grantId, window) => usage.getMinuteUsage(db, grantId, window),
    releaseMinute: (grantId, window, count) => usage.releaseMinute(db, grantId, window, count),
    dailyUsage: (grantId, from, to) => usage.dailyUsage(db, grantId, from, to),
    monthlyStatement: (period) => usage.monthlyStatement(db, period),
    usageBatchOutcome: (batchId, now) => own.usageBatchOutcome(batchId, now),

    createSubscription: (s, actor) => subscriptions.createSubscription(db, s, actor),
    getSubscription: (id) => subscriptions.getSubscription(db, id),
    listSubscriptions: (f, page) => subscriptions.listSubscriptions(db, f, page),
    updateSubscription: (id, patch, now, actor, action) =>
      subscriptions.updateSubscription(db, id, patch, now, actor, action),
    deleteSubscription: (id, now, actor) => subscriptions.deleteSubscription(db, id, now, actor),
    rotateSecret: (id, secret, until, now, actor) =>
      subscriptions.rotateSecret(db, id, secret, until, now, actor),
    emitEvents: (events, now) => webhooks.emitEvents(db, events, now),
    claimDeliveries: (now, leaseMs, limit) => webhooks.claimDeliveries(db, dialect, now, leaseMs, limit),
    recordAttempt: (outcome) => webhooks.recordAttempt(db, outcome),
    listDeliveries: (id, page) => deliveries.listDeliveries(db, id, page),
    redeliver: (id, deliveryId, now, actor) => deliveries.redeliver(db, id, deliveryId, now, actor),
    releaseDeliveryClaims: () => webhooks.releaseDeliveryClaims(db),
    importsAfter: (cursor, limit) => sources.importsAfter(db, cursor, limit),
    alertSubscriptions: () => sources.alertSubscriptions(db),
    setAlertActive: (id, active, event, now) => sources.setAlertActive(db, id, active, event, now),
    usageAtLeast: (period, percent) => sources.usageAtLeast(db, period, percent),
    keysExpiring: (now, before) => sources.keysExpiring(db, now, before),
    putSettingIf: (name, expected, value, events, now) =>
      sources.putSettingIf(db, name, expected, value, events, now),
  };
  return guarded(store, unavailable);
}
