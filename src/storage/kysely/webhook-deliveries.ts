/**
 * The delivery log of a subscription, and a delivery sent again
 * (docs/decisions.md, 68; GET and POST under /admin/v1/webhooks/{id}/deliveries).
 */
import type { AuditActor, KeysetPage } from '../admin-records.js';
import type { AttemptRecord, DeliveryRecord, DeliveryStatus } from '../webhook-records.js';
import { appendAudit } from './audit.js';
import { WebhookSubscriptions } from './webhook-subscriptions.js';

/** The webhook repository's deliveries as the operator lists and redelivers them. */
export class WebhookDeliveries extends WebhookSubscriptions {
  async listDeliveries(subscriptionId: string, page: KeysetPage): Promise<DeliveryRecord[]> {
    let q = this.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
      .selectAll('d')
      .select('e.type as event_type')
      .where('d.subscription_id', '=', subscriptionId);
    const after = page.after;
    if (after) {
      q = q.where((eb) =>
        eb.or([
          eb('d.created_at', '<', after.at),
          eb.and([eb('d.created_at', '=', after.at), eb('d.id', '<', after.id)]),
        ]),
      );
    }
    const rows = await q.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(page.limit).execute();
    if (rows.length === 0) return [];
    const attempts = await this.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where(
        'delivery_id',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('n')
      .execute();
    const logs = new Map<string, AttemptRecord[]>();
    for (const a of attempts) {
      const log = logs.get(a.delivery_id) ?? [];
      log.push({
        n: Number(a.n),
        at: Number(a.at),
        statusCode: a.status_code === null ? null : Number(a.status_code),
        error: a.error,
        durationMs: Number(a.duration_ms),
        responsePrefix: a.response_prefix,
      });
      logs.set(a.delivery_id, log);
    }
    return rows.map((r) => ({
      id: r.id,
      subscriptionId: r.subscription_id,
      eventId: r.event_id,
      eventType: r.event_type,
      status: r.status as DeliveryStatus,
      attempts: Number(r.attempts),
      nextAttemptAt: r.next_attempt_at === null ? null : Number(r.next_attempt_at),
      lastStatus: r.last_status === null ? null : Number(r.last_status),
      lastError: r.last_error,
      createdAt: Number(r.created_at),
      updatedAt: Number(r.updated_at),
      log: logs.get(r.id) ?? [],
    }));
  }

  async redeliver(
    subscriptionId: string,
    deliveryId: string,
    now: number,
    actor?: AuditActor,
  ): Promise<DeliveryRecord | undefined> {
    const changed = await this.db.transaction().execute(async (trx) => {
      const d = await trx
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts'])
        .where('id', '=', deliveryId)
        .where('subscription_id', '=', subscriptionId)
        .executeTakeFirst();
      if (!d) return false;
      await trx
        .updateTable('webhook_deliveries')
        .set({
          status: 'pending',
          next_attempt_at: now,
          round_start: Number(d.attempts),
          claimed_until: null,
          updated_at: now,
        })
        .where('id', '=', deliveryId)
        .execute();
      await appendAudit(
        trx,
        actor,
        'webhook.redeliver',
        subscriptionId,
        { delivery: { before: `${deliveryId} ${d.status}`, after: `${deliveryId} pending` } },
        now,
      );
      return true;
    });
    if (!changed) return undefined;
    const [record] = (await this.listDeliveries(subscriptionId, { limit: 1_000 })).filter(
      (r) => r.id === deliveryId,
    );
    return record;
  }
}
