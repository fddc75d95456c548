/**
 * Migration 0012_webhook_queues (listed in migrations/index.ts; never edited
 * once released): each subscription's pending deliveries, in the order they
 * go out (docs/decisions.md, 95). The claim reads the oldest pending delivery
 * of every subscription, and whether one of them is in flight, from this
 * index alone, however long the delivered history. Additive: the previous
 * release ignores it.
 */
import { type Kysely, type Migration, sql } from 'kysely';

export const webhookQueuesMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('webhook_deliveries_queue')
      .on('webhook_deliveries')
      .columns(['subscription_id', 'created_at', 'id'])
      .where(sql<boolean>`status = 'pending'`)
      .execute();
  },
};
