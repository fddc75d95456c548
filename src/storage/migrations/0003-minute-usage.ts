/**
 * Migration 0003_minute_usage (recorded under this name; never edited once released):
 * the store limiter's per-minute window.
 */
import type { Kysely, Migration } from 'kysely';

export const minuteUsageMigration: Migration = {
  // The per-minute window of the store limiter (PostgreSQL without Redis):
  // one row per grant holding the window it counts, so the table never grows
  // with time and needs no sweeping. Additive: the previous release never reads it.
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('minute_usage')
      .addColumn('grant_id', 'text', (c) => c.primaryKey().references('grants.id'))
      .addColumn('window_start', 'bigint', (c) => c.notNull())
      .addColumn('used', 'bigint', (c) => c.notNull())
      .execute();
  },
};
