/**
 * Webhooks: subscriptions, the outbox of events and their deliveries, and the
 * reads that feed the events (docs/decisions.md, 68). Implemented in Kysely
 * (kysely/webhook-*.ts, kysely/webhooks.ts). Tested on both backends by
 * test/storage/webhooks.contract.test.ts.
 */
import type { NewEvent } from '../../domain/webhook-events.js';
import type { AuditActor, KeysetPage } from '../admin-records.js';
import type {
  AttemptOutcome,
  ClaimedDelivery,
  ClaimLimits,
  DeliveryRecord,
  ExpiringKey,
  ImportForEvent,
  SubscriptionPatch,
  SubscriptionRecord,
  UsageOverThreshold,
} from '../webhook-records.js';

export interface WebhookRepository {
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
   * Claims due deliveries until `now + leaseMs`, at most `limits` of each lane:
   * per subscription only the oldest pending delivery, and only while none of
   * its deliveries is claimed, so a subscription's deliveries go one at a time,
   * in order (docs/decisions.md, 95). A claimed delivery is no other claimer's
   * until its attempt is recorded or the claim lapses (FOR UPDATE SKIP LOCKED
   * on PostgreSQL; one writer on SQLite).
   */
  claimDeliveries(now: number, leaseMs: number, limits: ClaimLimits): Promise<ClaimedDelivery[]>;
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
