/**
 * The one builder of each webhook event (docs/webhooks.md, "Events"), typed
 * by the event's schema (webhook-events.ts): a builder cannot return a
 * `data` its schema does not allow. Storage calls the builders of the events
 * written in the transaction of their cause (a key created or revoked, a
 * grant updated), the webhook worker those derived from durable state.
 */
import { microsToNumber } from './decimal.js';
import type { KeyEnvironment } from './keys.js';
import type { EventData, NewEvent } from './webhook-events.js';
import { thresholdCount } from './webhooks.js';

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

export function usageThreshold(
  g: { grantId: string; accountId: string; limit: number },
  period: string,
  threshold: EventData<'usage.threshold'>['threshold'],
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
      used: thresholdCount(g.limit, threshold),
      monthlyRequestLimit: g.limit,
    },
  };
}

/** A key as its events show it. */
interface KeyShown {
  publicId: string;
  grantId: string;
  label: string;
  environment: KeyEnvironment;
  expiresAt: number | null;
}

const keyData = (k: KeyShown, accountId: string) => ({
  keyId: k.publicId,
  grantId: k.grantId,
  accountId,
  label: k.label,
  environment: k.environment,
  expiresAt: isoOrNull(k.expiresAt),
});

/** `accountId`: the account of the key's grant. */
export function keyCreated(k: KeyShown, accountId: string): NewEvent {
  return { type: 'key.created', accountId, data: keyData(k, accountId) };
}

export function keyRevoked(k: KeyShown & { revokedAt: number }, accountId: string): NewEvent {
  return { type: 'key.revoked', accountId, data: { ...keyData(k, accountId), revokedAt: iso(k.revokedAt) } };
}

export function keyExpiring(
  k: { publicId: string; grantId: string; accountId: string; expiresAt: number },
  dedupeKey: string,
): NewEvent {
  return {
    type: 'key.expiring',
    accountId: k.accountId,
    dedupeKey,
    data: { keyId: k.publicId, grantId: k.grantId, accountId: k.accountId, expiresAt: iso(k.expiresAt) },
  };
}

/** `changes`: the grant's audit record of the change. */
export function grantUpdated(
  g: { id: string; accountId: string; status: EventData<'grant.updated'>['status'] },
  changes: EventData<'grant.updated'>['changes'],
): NewEvent {
  return {
    type: 'grant.updated',
    accountId: g.accountId,
    data: { grantId: g.id, accountId: g.accountId, status: g.status, changes },
  };
}

/** An import that wrote; its record is the event's outbox entry, its id the dedupe key. */
export function dataImported(i: {
  id: string;
  kind: string;
  sources: string[];
  received: number;
  inserted: number;
  updated: number;
  unchanged: number;
  newestUpdatedAt: number | null;
}): NewEvent {
  return {
    type: 'data.imported',
    accountId: null,
    dedupeKey: `data.imported:${i.id}`,
    data: {
      importId: i.id,
      kind: i.kind,
      sources: i.sources,
      counts: { received: i.received, inserted: i.inserted, updated: i.updated, unchanged: i.unchanged },
      newestUpdatedAt: isoOrNull(i.newestUpdatedAt),
    },
  };
}

/** An observation retracted (docs/decisions.md, 105), in the transaction that removed it; amounts in micro-DZD. */
export function dataRetracted(
  r: {
    id: string;
    kind: EventData<'data.retracted'>['kind'];
    code: string;
    source: EventData<'data.retracted'>['source'];
    updatedAt: number;
    buy: number;
    sell: number;
  },
  latest: { updatedAt: number; buy: number; sell: number } | null,
): NewEvent {
  return {
    type: 'data.retracted',
    accountId: null,
    data: {
      retractionId: r.id,
      kind: r.kind,
      code: r.code,
      source: r.source,
      updatedAt: iso(r.updatedAt),
      buy: microsToNumber(r.buy),
      sell: microsToNumber(r.sell),
      latest:
        latest === null
          ? null
          : {
              updatedAt: iso(latest.updatedAt),
              buy: microsToNumber(latest.buy),
              sell: microsToNumber(latest.sell),
            },
    },
  };
}

/** A family turned stale or fresh, as `/status` judges it. */
export function freshnessChanged(
  family: EventData<'data.stale'>['family'],
  f: { stale: boolean; updatedAt: number | null; ageSeconds: number | null; thresholdSeconds: number },
): NewEvent {
  const data = {
    family,
    updatedAt: isoOrNull(f.updatedAt),
    ageSeconds: f.ageSeconds,
    thresholdSeconds: f.thresholdSeconds,
  };
  return f.stale
    ? { type: 'data.stale', accountId: null, data }
    : { type: 'data.fresh', accountId: null, data };
}

/** A rate alert turned true: to its own subscription only. */
export function rateAlert(
  subscriptionId: string,
  accountId: string | null,
  filter: EventData<'rate.alert'>['filter'],
  reading: { value: number; observedAt: number },
): NewEvent {
  return {
    type: 'rate.alert',
    accountId,
    subscriptionId,
    data: { subscriptionId, filter, value: reading.value, observedAt: iso(reading.observedAt) },
  };
}

/** A reporter turned flagged (docs/decisions.md 117): written with the compare-and-set of its state, once per flagging. */
export function reporterFlagged(
  r: { reporterId: string; organisationId: string; failed: number; sample: number; quoteId: string },
  dedupeKey: string,
): NewEvent {
  return {
    type: 'reporter.flagged',
    accountId: null,
    dedupeKey,
    data: {
      reporterId: r.reporterId,
      organisationId: r.organisationId,
      failed: r.failed,
      sample: r.sample,
      quoteId: r.quoteId,
    },
  };
}
