/**
 * Migration 0008_webhooks (listed in migrations/index.ts; never edited once
 * released): webhook subscriptions, the outbox of events, one delivery per
 * event and subscription, and each delivery's attempts (docs/decisions.md, 68).
 * Additive: the previous release reads none of it.
 */
import { type Kysely, type Migration, sql } from 'kysely';

export const webhooksMigration: Migration = {
  async up(db: Kysely<unknown>) {
    // What an import covered, for its data.imported event: the import's record is its outbox entry.
    await db.schema
      .alterTable('imports')
      .addColumn('sources', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();
    await db.schema.alterTable('imports').addColumn('newest_updated_at', 'bigint').execute();
    await db.schema
      .createTable('webhook_subscriptions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('url', 'text', (c) => c.notNull())
      // JSON arrays and objects as text: read whole, never queried inside but by LIKE on a quoted type.
      .addColumn('event_types', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text')
      .addColumn('filter', 'text')
      .addColumn('description', 'text')
      .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('enabled','disabled')`))
      .addColumn('disabled_reason', 'text')
      // The signing secrets: needed to sign, so kept as given (docs/security.md).
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('previous_secret', 'text')
      .addColumn('previous_secret_expires_at', 'bigint')
      // A rate alert's condition as the last evaluation found it: 1 true, 0 false.
      .addColumn('alert_active', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('webhook_subscriptions_created')
      .on('webhook_subscriptions')
      .columns(['created_at', 'id'])
      .execute();
    await db.schema
      .createTable('webhook_events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      // The delivered body, byte for byte: every attempt sends the same.
      .addColumn('payload', 'text', (c) => c.notNull())
      // Events derived from state (a threshold, an expiry) are written once per key.
      .addColumn('dedupe_key', 'text', (c) => c.unique())
      .execute();
    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('subscription_id', 'text', (c) => c.notNull())
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending','delivered','failed')`))
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      // Attempts made before the last redelivery: the schedule counts from there.
      .addColumn('round_start', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'bigint')
      // A claim by the process making the attempt, until this instant.
      .addColumn('claimed_until', 'bigint')
      .addColumn('last_status', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_pair')
      .unique()
      .on('webhook_deliveries')
      .columns(['subscription_id', 'event_id'])
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_due')
      .on('webhook_deliveries')
      .columns(['status', 'next_attempt_at'])
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_subscription')
      .on('webhook_deliveries')
      .columns(['subscription_id', 'created_at', 'id'])
      .execute();
    await db.schema
      .createTable('webhook_attempts')
      .addColumn('delivery_id', 'text', (c) => c.notNull())
      .addColumn('n', 'integer', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('error', 'text')
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      // A short prefix of the receiver's answer, never more (docs/webhooks.md).
      .addColumn('response_prefix', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_id', 'n'])
      .execute();
  },
};
