/**
 * Webhook subscriptions as Kysely writes and reads them for either dialect
 * (docs/decisions.md, 68): each change audited in its transaction, never
 * with a secret.
 */
import type { AlertFilter, EventType } from '../../domain/webhooks.js';
import type { AuditActor, KeysetPage } from '../admin-records.js';
import type { WebhookSubscriptionsTable } from '../schema.js';
import type { StoreDialect } from '../store.js';
import type { SubscriptionPatch, SubscriptionRecord, SubscriptionStatus } from '../webhook-records.js';
import { appendAudit, auditInstant, changesOf } from './audit.js';
import { createdAfter, type Db, type Runner } from './database.js';

export function toSubscription(r: WebhookSubscriptionsTable): SubscriptionRecord {
  return {
    id: r.id,
    url: r.url,
    eventTypes: JSON.parse(r.event_types) as EventType[],
    accountId: r.account_id,
    filter: r.filter === null ? null : (JSON.parse(r.filter) as AlertFilter),
    description: r.description,
    status: r.status as SubscriptionStatus,
    disabledReason: r.disabled_reason,
    secret: r.secret,
    previousSecret: r.previous_secret,
    previousSecretExpiresAt:
      r.previous_secret_expires_at === null ? null : Number(r.previous_secret_expires_at),
    alertActive: Number(r.alert_active) === 1,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

/** What the audit log records of a subscription: never a secret. */
export function auditFields(s: SubscriptionRecord | null): Record<string, unknown> | null {
  if (s === null) return null;
  return {
    url: s.url,
    eventTypes: s.eventTypes,
    accountId: s.accountId,
    filter: s.filter,
    description: s.description,
    status: s.status,
    disabledReason: s.disabledReason,
  };
}

function subscriptionRow(s: SubscriptionRecord): WebhookSubscriptionsTable {
  return {
    id: s.id,
    url: s.url,
    event_types: JSON.stringify(s.eventTypes),
    account_id: s.accountId,
    filter: s.filter === null ? null : JSON.stringify(s.filter),
    description: s.description,
    status: s.status,
    disabled_reason: s.disabledReason,
    secret: s.secret,
    previous_secret: s.previousSecret,
    previous_secret_expires_at: s.previousSecretExpiresAt,
    alert_active: s.alertActive ? 1 : 0,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}

export async function getSubscription(db: Runner, id: string): Promise<SubscriptionRecord | undefined> {
  const r = await db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
  return r && toSubscription(r);
}

/**
 * The subscriptions of the webhook repository: the first part of
 * KyselyWebhooks (webhook-sources.ts), which extends this class through
 * webhook-deliveries.ts and webhooks.ts, one file per job.
 */
export class WebhookSubscriptions {
  constructor(
    protected readonly db: Db,
    protected readonly dialect: StoreDialect,
  ) {}

  getSubscription(id: string): Promise<SubscriptionRecord | undefined> {
    return getSubscription(this.db, id);
  }

  async createSubscription(s: SubscriptionRecord, actor?: AuditActor): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('webhook_subscriptions').values(subscriptionRow(s)).execute();
      await appendAudit(trx, actor, 'webhook.create', s.id, changesOf(null, auditFields(s)), s.createdAt);
    });
  }

  async listSubscriptions(filter: { accountId?: string }, page: KeysetPage): Promise<SubscriptionRecord[]> {
    let q = this.db.selectFrom('webhook_subscriptions').selectAll();
    if (filter.accountId !== undefined) q = q.where('account_id', '=', filter.accountId);
    if (page.after) q = q.where(createdAfter(page.after));
    const rows = await q.orderBy('created_at').orderBy('id').limit(page.limit).execute();
    return rows.map(toSubscription);
  }

  async updateSubscription(
    id: string,
    patch: SubscriptionPatch,
    now: number,
    actor?: AuditActor,
    action = 'webhook.update',
  ): Promise<SubscriptionRecord | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const before = await getSubscription(trx, id);
      if (!before) return undefined;
      const after: SubscriptionRecord = { ...before, ...patch, updatedAt: now };
      // Enabled again: the reason it was disabled no longer applies.
      if (patch.status === 'enabled' && patch.disabledReason === undefined) after.disabledReason = null;
      const changes = changesOf(auditFields(before), auditFields(after));
      if (Object.keys(changes).length === 0) return before;
      const row = subscriptionRow(after);
      await trx
        .updateTable('webhook_subscriptions')
        .set({
          url: row.url,
          event_types: row.event_types,
          account_id: row.account_id,
          filter: row.filter,
          description: row.description,
          status: row.status,
          disabled_reason: row.disabled_reason,
          updated_at: now,
        })
        .where('id', '=', id)
        .execute();
      await appendAudit(trx, actor, action, id, changes, now);
      return after;
    });
  }

  async deleteSubscription(id: string, now: number, actor?: AuditActor): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const before = await getSubscription(trx, id);
      if (!before) return false;
      const deliveries = trx.selectFrom('webhook_deliveries').select('id').where('subscription_id', '=', id);
      await trx.deleteFrom('webhook_attempts').where('delivery_id', 'in', deliveries).execute();
      await trx.deleteFrom('webhook_deliveries').where('subscription_id', '=', id).execute();
      await trx.deleteFrom('webhook_subscriptions').where('id', '=', id).execute();
      await appendAudit(trx, actor, 'webhook.delete', id, changesOf(auditFields(before), null), now);
      return true;
    });
  }

  async rotateSecret(
    id: string,
    secret: string,
    previousExpiresAt: number,
    now: number,
    actor?: AuditActor,
  ): Promise<SubscriptionRecord | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const before = await getSubscription(trx, id);
      if (!before) return undefined;
      await trx
        .updateTable('webhook_subscriptions')
        .set({
          secret,
          previous_secret: before.secret,
          previous_secret_expires_at: previousExpiresAt,
          updated_at: now,
        })
        .where('id', '=', id)
        .execute();
      // The record says that and until when, never what: secrets stay out of the log.
      const changes = { previousSecretExpiresAt: { before: null, after: auditInstant(previousExpiresAt) } };
      await appendAudit(trx, actor, 'webhook.rotate_secret', id, changes, now);
      return {
        ...before,
        secret,
        previousSecret: before.secret,
        previousSecretExpiresAt: previousExpiresAt,
        updatedAt: now,
      };
    });
  }
}
