/**
 * Migration 0007_usage_batches_daily (listed in migrations/index.ts; never edited
 * once released): usage by UTC day and key, and the ids of usage commits
 * (docs/decisions.md, 59). Additive: the previous release reads neither.
 */
import { type Kysely, type Migration, SqliteAdapter } from 'kysely';
import { USAGE_DAILY_TABLE } from '../usage-file.js';

export const usageMigration: Migration = {
  async up(db: Kysely<unknown>) {
    if (db.getExecutor().adapter instanceof SqliteAdapter) {
      // In the usage file, beside `usage` (decisions 55): written by the same
      // commit, on the usage file's own connection. No usage_batches on SQLite:
      // its commits run in the process, so a failed one is known to be rolled
      // back and there is never a reply to lose.
      await USAGE_DAILY_TABLE.execute(db);
      return;
    }
    // Grant totals are the sum over keys: one row per (grant, day, key), so a
    // tick writes each unit once. The key order serves "a grant's days".
    await db.schema
      .createTable('usage_daily')
      .addColumn('grant_id', 'text', (c) => c.notNull())
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('key_id', 'text', (c) => c.notNull())
      .addColumn('used', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('usage_daily_pk', ['grant_id', 'day', 'key_id'])
      .execute();
    await db.schema
      .createTable('usage_batches')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('committed_at', 'bigint', (c) => c.notNull())
      .addColumn('detail', 'text')
      // Written by a lookup that found no commit: the id then means "never applied".
      .addColumn('claimed', 'boolean', (c) => c.notNull().defaultTo(false))
      .execute();
    await db.schema
      .createIndex('usage_batches_committed')
      .on('usage_batches')
      .column('committed_at')
      .execute();
  },
};
