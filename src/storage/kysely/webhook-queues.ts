/**
 * Each subscription's deliveries as a queue (docs/decisions.md, 95): one at
 * a time, in the order their events were written. A delivery is claimable
 * when it is its subscription's oldest pending one (created time, then id),
 * due, and no delivery of that subscription is claimed by anyone; of the
 * claimable ones, those whose receiver's last attempt failed are claimed in
 * a lane of their own, so that any number of failing receivers leaves the
 * healthy ones their room. Read by the partial index of migration 0012.
 */
import { type RawBuilder, sql } from 'kysely';
import type { StoreDialect } from '../store.js';

export type Lane = 'healthy' | 'failing';

/**
 * The ids of up to `limit` claimable deliveries of `lane`, soonest due first.
 * On PostgreSQL the rows are locked, skipping those another claimer holds:
 * two instances never claim the same queue's head.
 */
export function claimableIds(
  dialect: StoreDialect,
  now: number,
  lane: Lane,
  limit: number,
): RawBuilder<{ id: string }> {
  // One order for the queue on every database: bytes, whatever the collation.
  const id = dialect === 'postgres' ? sql`o.id collate "C"` : sql`o.id`;
  // A receiver is failing while its queue's head has failed since it was (re)queued.
  const standing = lane === 'failing' ? sql`d.attempts > d.round_start` : sql`d.attempts <= d.round_start`;
  const lock = dialect === 'postgres' ? sql`for update of d skip locked` : sql``;
  return sql<{ id: string }>`select d.id from webhook_subscriptions s
    join webhook_deliveries d on d.id = (
      select o.id from webhook_deliveries o where o.subscription_id = s.id and o.status = 'pending'
      order by o.created_at, ${id} limit 1)
    where s.status = 'enabled' and d.next_attempt_at <= ${now}
      and (d.claimed_until is null or d.claimed_until <= ${now}) and ${standing}
      and not exists (select 1 from webhook_deliveries c where c.subscription_id = s.id
        and c.status = 'pending' and c.claimed_until > ${now})
    order by d.next_attempt_at limit ${limit} ${lock}`;
}
