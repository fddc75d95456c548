/**
 * Webhook subscriptions, the outbox and deliveries as the store keeps them,
 * and the part of the Store interface that writes and reads them
 * (docs/decisions.md, 68). Every change to a subscription appends its audit
 * record in its own transaction; an event is written to the outbox with one
 * delivery per matching subscription, in the transaction of the change that
 * causes it.
 */
import type { NewEvent } from '../domain/webhook-events.js';
import type { AlertFilter, EventType } from '../domain/webhooks.js';
import type { AuditActor, KeysetPage } from './admin-records.js';

export const SUBSCRIPTION_STATUSES = ['enabled', 'disabled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface SubscriptionRecord {
  id: string;
  url: string;
  eventTypes: EventType[];
  /** Only this account's events (and those of no account) when set. */
  accountId: string | null;
  filter: AlertFilter | null;
  description: string | null;
  status: SubscriptionStatus;
  disabledReason: string | null;
  secret: string;
  /** The secret before the last rotation, still signing until it expires. */
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
  /** A rate alert's condition as last evaluated. */
  alertActive: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface SubscriptionPatch {
  url?: string;
  eventTypes?: EventType[];
  accountId?: string | null;
  filter?: AlertFilter | null;
  description?: string | null;
  status?: SubscriptionStatus;
  disabledReason?: string | null;
}

export interface AttemptRecord {
  n: number;
  at: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responsePrefix: string;
}

export interface DeliveryRecord {
  id: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
  log: AttemptRecord[];
}

/** A delivery claimed for one attempt, with what the attempt needs. */
export interface ClaimedDelivery {
  id: string;
  subscriptionId: string;
  eventId: string;
  payload: string;
  url: string;
  /** Every secret that signs now: the current one, and the previous one during its overlap. */
  secrets: string[];
  attempts: number;
  /** Attempts made before the last redelivery: the schedule counts from there. */
  roundStart: number;
  /** When the delivery (or its redelivery) was queued, or its last attempt made. */
  since: number;
}

/** What an attempt found; `nextAttemptAt` null and not delivered: given up. */
export interface AttemptOutcome extends AttemptRecord {
  deliveryId: string;
  delivered: boolean;
  nextAttemptAt: number | null;
}

export interface UsageOverThreshold {
  grantId: string;
  accountId: string;
  used: number;
  limit: number;
}

export interface ExpiringKey {
  publicId: string;
  grantId: string;
  accountId: string;
  expiresAt: number;
}

export interface ImportForEvent {
  id: string;
  kind: string;
  createdAt: number;
  received: number;
  inserted: number;
  updated: number;
  unchanged: number;
  sources: string[];
  newestUpdatedAt: number | null;
}

/** The webhooks' part of the store (kysely/webhooks.ts). */
export interface WebhookStore {
  createSubscription(s: SubscriptionRecord, actor?: AuditActor): Promise<void>;
  getSubscription(id: string): Promise<SubscriptionRecord | undefined>;
  /** Oldest first (created time, then id). */
  listSubscriptions(filter: { accountId?: string }, page: KeysetPage): Promise<SubscriptionRecord[]>;
  /** `action` names the audit record (`webhook.update`, `webhook.disabled`). */
  updateSubscription(
    id: string,
    patch: SubscriptionPatch,
    now: number,
    actor?: AuditActor,
    action?: string,
  ): Promise<SubscriptionRecord | undefined>;
  /** Its deliveries and their attempts go with it. False when there was none. */
  deleteSubscription(id: string, now: number, actor?: AuditActor): Promise<boolean>;
  /** The new secret signs from now; the current one until `previousExpiresAt`. */
  rotateSecret(
    id: string,
    secret: string,
    previousExpiresAt: number,
    now: number,
    actor?: AuditActor,
  ): Promise<SubscriptionRecord | undefined>;
  /** Writes each event (dropped if its dedupe key was written before) and its deliveries; the ids written. */
  emitEvents(events: readonly NewEvent[], now: number): Promise<string[]>;
  /**
   * Claims up to `limit` due pending deliveries until `now + leaseMs`: a claimed
   * delivery is no other claimer's until its attempt is recorded or the claim
   * lapses (FOR UPDATE SKIP LOCKED on PostgreSQL; one writer on SQLite).
   */
  claimDeliveries(now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]>;
  /** One transaction: the attempt, the delivery's state, and when given up, the subscription disabled and audited. */
  recordAttempt(outcome: AttemptOutcome): Promise<void>;
  /** Newest first (created time, then id), each with its attempts. */
  listDeliveries(subscriptionId: string, page: KeysetPage): Promise<DeliveryRecord[]>;
  /** Queued again now, the schedule starting over; audited. */
  redeliver(
    subscriptionId: string,
    deliveryId: string,
    now: number,
    actor?: AuditActor,
  ): Promise<DeliveryRecord | undefined>;
  /** Drops every claim: only for the one process serving a SQLite file, at its start. */
  releaseDeliveryClaims(): Promise<void>;

  /** Imports that wrote, after the one named (in the order written), for data.imported. */
  importsAfter(cursor: string | null, limit: number): Promise<ImportForEvent[]>;
  /** Enabled subscriptions to rate.alert with a filter. */
  alertSubscriptions(): Promise<SubscriptionRecord[]>;
  /**
   * Sets an alert's state if it is still `!active`, with its event when it turns
   * true, in one transaction: of two evaluators, one wins. True when it changed.
   */
  setAlertActive(id: string, active: boolean, event: NewEvent | null, now: number): Promise<boolean>;
  /** Grants of `period` at or past `percent` of their monthly limit. */
  usageAtLeast(period: string, percent: number): Promise<UsageOverThreshold[]>;
  /** Active keys of active grants expiring in (now, before]. */
  keysExpiring(now: number, before: number): Promise<ExpiringKey[]>;
  /**
   * A setting moved from `expected` (undefined: absent) to `value` with its
   * events, in one transaction; false when it had moved on (another instance).
   */
  putSettingIf(
    name: string,
    expected: string | undefined,
    value: string,
    events: readonly NewEvent[],
    now: number,
  ): Promise<boolean>;
}
