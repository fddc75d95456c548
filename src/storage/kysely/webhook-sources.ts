/**
 * What the webhook worker reads to derive events from durable state
 * (docs/decisions.md, 68): imports that wrote, rate alerts, grants near
 * their quota, keys near their expiry, and the settings that record how far
 * events were written, changed by compare-and-set with their events.
 */
import type { NewEvent } from '../../domain/webhook-events.js';
import type { WebhookRepository } from '../repositories/webhooks.js';
import type {
  ExpiringKey,
  ImportForEvent,
  SubscriptionRecord,
  UsageOverThreshold,
} from '../webhook-records.js';
import { toSubscription } from './webhook-subscriptions.js';
import { emitIn, WebhookOutbox } from './webhooks.js';

/**
 * The webhook repository as both backends run it: its subscriptions
 * (webhook-subscriptions.ts), deliveries (webhook-deliveries.ts) and outbox
 * (webhooks.ts), and here the reads that feed the events.
 */
export class KyselyWebhooks extends WebhookOutbox implements WebhookRepository {
  async importsAfter(cursor: string | null, limit: number): Promise<ImportForEvent[]> {
    let q = this.db
      .selectFrom('imports')
      .selectAll()
      .where((eb) => eb(eb('inserted', '+', eb.ref('updated')), '>', 0));
    if (cursor !== null) {
      const at = this.db.selectFrom('imports').select('created_at').where('id', '=', cursor);
      q = q.where((eb) =>
        eb.or([eb('created_at', '>', at), eb.and([eb('created_at', '=', at), eb('id', '>', cursor)])]),
      );
    }
    const rows = await q.orderBy('created_at').orderBy('id').limit(limit).execute();
    return rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      createdAt: Number(r.created_at),
      received: Number(r.received),
      inserted: Number(r.inserted),
      updated: Number(r.updated),
      unchanged: Number(r.unchanged),
      sources: JSON.parse(r.sources) as string[],
      newestUpdatedAt: r.newest_updated_at === null ? null : Number(r.newest_updated_at),
    }));
  }

  async alertSubscriptions(): Promise<SubscriptionRecord[]> {
    const rows = await this.db
      .selectFrom('webhook_subscriptions')
      .selectAll()
      .where('status', '=', 'enabled')
      .where('filter', 'is not', null)
      .where('event_types', 'like', '%"rate.alert"%')
      .execute();
    return rows.map(toSubscription);
  }

  async setAlertActive(id: string, active: boolean, event: NewEvent | null, now: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const changed = await trx
        .updateTable('webhook_subscriptions')
        .set({ alert_active: active ? 1 : 0 })
        .where('id', '=', id)
        .where('alert_active', '=', active ? 0 : 1)
        .executeTakeFirst();
      if (Number(changed.numUpdatedRows) === 0) return false;
      if (event) await emitIn(trx, [event], now);
      return true;
    });
  }

  async usageAtLeast(period: string, percent: number): Promise<UsageOverThreshold[]> {
    const rows = await this.db
      .selectFrom('usage as u')
      .innerJoin('grants as g', 'g.id', 'u.grant_id')
      .select(['u.grant_id', 'g.account_id', 'u.used', 'g.monthly_request_limit'])
      .where('u.period', '=', period)
      .where('g.monthly_request_limit', '>', 0)
      .where((eb) => eb(eb('u.used', '*', 100), '>=', eb('g.monthly_request_limit', '*', percent)))
      .execute();
    return rows.map((r) => ({
      grantId: r.grant_id,
      accountId: r.account_id,
      used: Number(r.used),
      limit: Number(r.monthly_request_limit),
    }));
  }

  async keysExpiring(now: number, before: number): Promise<ExpiringKey[]> {
    const rows = await this.db
      .selectFrom('api_keys as k')
      .innerJoin('grants as g', 'g.id', 'k.grant_id')
      .select(['k.public_id', 'k.grant_id', 'g.account_id', 'k.expires_at'])
      .where('k.status', '=', 'active')
      .where('g.status', '=', 'active')
      .where('k.expires_at', '>', now)
      .where('k.expires_at', '<=', before)
      .execute();
    return rows.map((r) => ({
      publicId: r.public_id,
      grantId: r.grant_id,
      accountId: r.account_id,
      expiresAt: Number(r.expires_at),
    }));
  }

  /**
   * Sets a setting from `expected` (undefined: absent) to `value`, with its
   * events, in one transaction: of two instances making the same change, one
   * wins and writes the events. False when the setting had moved on.
   */
  async putSettingIf(
    name: string,
    expected: string | undefined,
    value: string,
    events: readonly NewEvent[],
    now: number,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const changed =
        expected === undefined
          ? Number(
              (
                await trx
                  .insertInto('settings')
                  .values({ name, value })
                  .onConflict((oc) => oc.column('name').doNothing())
                  .executeTakeFirst()
              ).numInsertedOrUpdatedRows ?? 0,
            )
          : Number(
              (
                await trx
                  .updateTable('settings')
                  .set({ value })
                  .where('name', '=', name)
                  .where('value', '=', expected)
                  .executeTakeFirst()
              ).numUpdatedRows,
            );
      if (changed === 0) return false;
      await emitIn(trx, events, now);
      return true;
    });
  }
}
