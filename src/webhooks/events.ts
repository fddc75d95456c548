/**
 * The events the worker derives from durable state (worker.ts), as
 * docs/webhooks.md lists their `data`: pure builders over the store's rows.
 */
import type { StaleFamily } from '../config.js';
import type { AlertFilter, AlertReading, NewEvent } from '../domain/webhooks.js';
import type { FamilyFreshness } from '../runtime/freshness.js';
import type { ExpiringKey, ImportForEvent, UsageOverThreshold } from '../storage/webhook-records.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** An import that wrote; its record is the event's outbox entry, its id the dedupe key. */
export function importedEvent(i: ImportForEvent): NewEvent {
  return {
    type: 'data.imported',
    accountId: null,
    dedupeKey: `data.imported:${i.id}`,
    data: {
      importId: i.id,
      kind: i.kind,
      sources: i.sources,
      counts: { received: i.received, inserted: i.inserted, updated: i.updated, unchanged: i.unchanged },
      newestUpdatedAt: iso(i.newestUpdatedAt),
    },
  };
}

/** A rate alert turned true: to its own subscription only. */
export function alertEvent(
  subscriptionId: string,
  accountId: string | null,
  filter: AlertFilter,
  reading: AlertReading,
): NewEvent {
  return {
    type: 'rate.alert',
    accountId,
    subscriptionId,
    data: { subscriptionId, filter, value: reading.value, observedAt: iso(reading.observedAt) },
  };
}

export function thresholdEvent(
  g: UsageOverThreshold,
  period: string,
  threshold: number,
  dedupeKey: string,
): NewEvent {
  return {
    type: 'usage.threshold',
    accountId: g.accountId,
    dedupeKey,
    data: {
      grantId: g.grantId,
      accountId: g.accountId,
      period,
      threshold,
      used: g.used,
      monthlyRequestLimit: g.limit,
    },
  };
}

export function expiringEvent(k: ExpiringKey, dedupeKey: string): NewEvent {
  return {
    type: 'key.expiring',
    accountId: k.accountId,
    dedupeKey,
    data: { keyId: k.publicId, grantId: k.grantId, accountId: k.accountId, expiresAt: iso(k.expiresAt) },
  };
}

export function freshnessEvent(family: StaleFamily, f: FamilyFreshness): NewEvent {
  return {
    type: f.stale ? 'data.stale' : 'data.fresh',
    accountId: null,
    data: {
      family,
      updatedAt: iso(f.updatedAt),
      ageSeconds: f.ageSeconds,
      thresholdSeconds: f.thresholdSeconds,
    },
  };
}
