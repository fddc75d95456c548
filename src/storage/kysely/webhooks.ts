/**
 * The webhook outbox and its deliveries, as Kysely writes and reads them for
 * either dialect (docs/decisions.md, 68). `emitIn` is called inside
 * the transaction of the change that causes an event (access.ts), so that the
 * change and its event commit or roll back together.
 */
import { sql } from 'kysely';
import { eventPayload, type NewEvent } from '../../domain/webhook-events.js';
import { newEventId } from '../../domain/webhooks.js';
import { SYSTEM_ACTOR } from '../admin-records.js';
import type { WebhookDeliveriesTable } from '../schema.js';
import type { AttemptOutcome, ClaimedDelivery, ClaimLimits, DeliveryStatus } from '../webhook-records.js';
import { appendAudit, changesOf } from './audit.js';
import type { Runner } from './database.js';
import { WebhookDeliveries } from './webhook-deliveries.js';
import { claimableIds, type Lane } from './webhook-queues.js';
import { auditFields, getSubscription, toSubscription } from './webhook-subscriptions.js';

/**
 * Writes events and their deliveries on `trx`, the transaction of their cause.
 * An event concerning an account goes to the subscriptions of that account
 * and to those of none; an event of no account to every subscription of its
 * type; a rate alert to its own subscription. The ids written.
 */
export async function emitIn(trx: Runner, events: readonly NewEvent[], now: number): Promise<string[]> {
  const written: string[] = [];
  for (const event of events) {
    const id = newEventId(now);
    const inserted = await trx
      .insertInto('webhook_events')
      .values({
        id,
        type: event.type,
        account_id: event.accountId,
        created_at: now,
        payload: eventPayload(id, event, now),
        dedupe_key: event.dedupeKey ?? null,
      })
      .onConflict((oc) => oc.column('dedupe_key').doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) continue;
    written.push(id);
    const matching =
      event.subscriptionId !== undefined
        ? sql`s.id = ${event.subscriptionId}`
        : event.accountId === null
          ? sql`s.event_types like ${`%"${event.type}"%`}`
          : sql`s.event_types like ${`%"${event.type}"%`} and (s.account_id is null or s.account_id = ${event.accountId})`;
    await sql`insert into webhook_deliveries
        (id, subscription_id, event_id, status, attempts, round_start, next_attempt_at, created_at, updated_at)
      select 'dlv_' || ${id.slice(4)} || '_' || substr(s.id, 5), s.id, ${id}, 'pending', 0, 0,
        cast(${now} as bigint), cast(${now} as bigint), cast(${now} as bigint)
      from webhook_subscriptions s where s.status = 'enabled' and ${matching}`.execute(trx);
  }
  return written;
}

/** The webhook repository's outbox: events written, deliveries claimed and attempts recorded. */
export class WebhookOutbox extends WebhookDeliveries {
  async emitEvents(events: readonly NewEvent[], now: number): Promise<string[]> {
    if (events.length === 0) return [];
    return this.db.transaction().execute((trx) => emitIn(trx, events, now));
  }

  async claimDeliveries(now: number, leaseMs: number, limits: ClaimLimits): Promise<ClaimedDelivery[]> {
    const rows: WebhookDeliveriesTable[] = [];
    for (const lane of ['healthy', 'failing'] as const) {
      if (limits[lane] > 0) rows.push(...(await this.claimLane(now, now + leaseMs, lane, limits[lane])));
    }
    return this.withWhatAttemptsNeed(rows, now);
  }

  private async claimLane(now: number, until: number, lane: Lane, limit: number) {
    if (this.dialect === 'postgres') {
      const claimed =
        await sql<WebhookDeliveriesTable>`update webhook_deliveries w set claimed_until = ${until}
        from (${claimableIds('postgres', now, lane, limit)}) c where w.id = c.id returning w.*`.execute(
          this.db,
        );
      return claimed.rows;
    }
    // Read first: a poll that finds nothing to claim writes nothing. On SQLite a write
    // would wait for the file's lock, held for seconds by an import in another
    // process, and block the event loop meanwhile; a read does not wait in WAL mode.
    // Between the read and the write nobody else claims: one process serves the file,
    // and its worker claims one lane at a time.
    const ids = (await claimableIds('sqlite', now, lane, limit).execute(this.db)).rows.map((r) => r.id);
    if (ids.length === 0) return [];
    const claimed = await sql<WebhookDeliveriesTable>`update webhook_deliveries set claimed_until = ${until}
      where id in (${sql.join(ids)}) and status = 'pending'
        and (claimed_until is null or claimed_until <= ${now})
      returning *`.execute(this.db);
    return claimed.rows;
  }

  /** The claimed deliveries with their payloads, URLs and secrets. */
  private async withWhatAttemptsNeed(
    rows: WebhookDeliveriesTable[],
    now: number,
  ): Promise<ClaimedDelivery[]> {
    const claimed = { rows };
    if (claimed.rows.length === 0) return [];
    const events = await this.db
      .selectFrom('webhook_events')
      .select(['id', 'payload'])
      .where(
        'id',
        'in',
        claimed.rows.map((d) => d.event_id),
      )
      .execute();
    const subscriptions = await this.db
      .selectFrom('webhook_subscriptions')
      .selectAll()
      .where(
        'id',
        'in',
        claimed.rows.map((d) => d.subscription_id),
      )
      .execute();
    const payloads = new Map(events.map((e) => [e.id, e.payload]));
    const subs = new Map(subscriptions.map((s) => [s.id, toSubscription(s)]));
    const out: ClaimedDelivery[] = [];
    for (const d of claimed.rows) {
      const s = subs.get(d.subscription_id);
      const payload = payloads.get(d.event_id);
      if (!s || payload === undefined) continue;
      const secrets = [s.secret];
      if (s.previousSecret !== null && (s.previousSecretExpiresAt ?? 0) > now) secrets.push(s.previousSecret);
      out.push({
        id: d.id,
        subscriptionId: d.subscription_id,
        eventId: d.event_id,
        payload,
        url: s.url,
        secrets,
        attempts: Number(d.attempts),
        roundStart: Number(d.round_start),
        failing: Number(d.attempts) > Number(d.round_start),
        since: Number(d.updated_at),
      });
    }
    return out;
  }

  async recordAttempt(o: AttemptOutcome): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const d = await trx
        .selectFrom('webhook_deliveries')
        .select(['subscription_id', 'status'])
        .where('id', '=', o.deliveryId)
        .executeTakeFirst();
      // Deleted with its subscription meanwhile: nothing to record.
      if (!d) return;
      await trx
        .insertInto('webhook_attempts')
        .values({
          delivery_id: o.deliveryId,
          n: o.n,
          at: o.at,
          status_code: o.statusCode,
          error: o.error,
          duration_ms: Math.round(o.durationMs),
          response_prefix: o.responsePrefix,
        })
        .onConflict((oc) => oc.columns(['delivery_id', 'n']).doNothing())
        .execute();
      const status: DeliveryStatus = o.delivered
        ? 'delivered'
        : o.nextAttemptAt === null
          ? 'failed'
          : 'pending';
      await trx
        .updateTable('webhook_deliveries')
        .set({
          status,
          attempts: o.n,
          next_attempt_at: status === 'pending' ? o.nextAttemptAt : null,
          claimed_until: null,
          last_status: o.statusCode,
          last_error: o.error,
          updated_at: o.at,
        })
        .where('id', '=', o.deliveryId)
        .execute();
      if (status !== 'failed') return;
      const sub = await getSubscription(trx, d.subscription_id);
      if (!sub || sub.status === 'disabled') return;
      const reason = `delivery ${o.deliveryId} failed ${o.n} attempts; enable the subscription to resume`;
      await trx
        .updateTable('webhook_subscriptions')
        .set({ status: 'disabled', disabled_reason: reason, updated_at: o.at })
        .where('id', '=', d.subscription_id)
        .execute();
      const after = { ...sub, status: 'disabled' as const, disabledReason: reason };
      await appendAudit(
        trx,
        SYSTEM_ACTOR,
        'webhook.disabled',
        sub.id,
        changesOf(auditFields(sub), auditFields(after)),
        o.at,
      );
    });
  }

  async releaseDeliveryClaims(): Promise<void> {
    await this.db
      .updateTable('webhook_deliveries')
      .set({ claimed_until: null })
      .where('claimed_until', 'is not', null)
      .execute();
  }
}
