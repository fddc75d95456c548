/**
 * Webhook subscriptions, the outbox and deliveries as the store keeps them
 * (docs/decisions.md, 68), for the webhook repository
 * (repositories/webhooks.ts). Every change to a subscription appends its audit
 * record in its own transaction; an event is written to the outbox with one
 * delivery per matching subscription, in the transaction of the change that
 * causes it.
 */
import type { AlertFilter, EventType } from '../domain/webhooks.js';

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
  /** It failed since it was (re)queued: claimed in the failing receivers' lane. */
  failing: boolean;
  /** When the delivery (or its redelivery) was queued, or its last attempt made. */
  since: number;
}

/**
 * How many deliveries one claim may take in each lane (docs/decisions.md, 95):
 * receivers in good standing, and receivers whose last attempt failed.
 */
export interface ClaimLimits {
  healthy: number;
  failing: number;
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
