/**
 * Migration 0015_reporters (listed in migrations/index.ts; never edited once
 * released): organisations, reporters, their states over time, their tokens
 * and their quotes (docs/decisions.md 108); each consensus market's
 * publication state and every published point with its inputs (decisions
 * 109). Additive: the previous release reads none of it.
 */
import { type Kysely, type Migration, sql } from 'kysely';

export const reportersMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('organisations')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('reporters')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
      // The markets it may quote, comma-separated (`EUR,USD,21K`): read whole.
      .addColumn('markets', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('active','suspended','removed')`))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('reporters_created').on('reporters').columns(['created_at', 'id']).execute();
    // Appended, never updated: a published point is recomputed with the reporters as they were.
    await db.schema
      .createTable('reporter_states')
      .addColumn('reporter_id', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('reporter_states_pk', ['reporter_id', 'at', 'seq'])
      .execute();
    await db.schema
      .createTable('reporter_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('reporter_id', 'text', (c) => c.notNull())
      .addColumn('digest', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema
      .createTable('quotes')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('reporter_id', 'text', (c) => c.notNull())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('market', 'text', (c) => c.notNull())
      .addColumn('buy', 'bigint', (c) => c.notNull())
      .addColumn('sell', 'bigint', (c) => c.notNull())
      .addColumn('observed_at', 'bigint', (c) => c.notNull())
      .addColumn('received_at', 'bigint', (c) => c.notNull())
      .addColumn('place', 'text')
      .addCheckConstraint('quotes_sell_not_below_buy', sql`sell >= buy`)
      .execute();
    await db.schema
      .createIndex('quotes_market_observed')
      .on('quotes')
      .columns(['market', 'observed_at'])
      .execute();
    await db.schema
      .createIndex('quotes_reporter_received')
      .on('quotes')
      .columns(['reporter_id', 'received_at'])
      .execute();
    // Quotes received since an instant: the markets the periodic pass recomputes and the reporters the
    // webhook worker judges again (decisions 109, 117), read every few seconds.
    await db.schema.createIndex('quotes_received').on('quotes').column('received_at').execute();
    // One row per market: what was last published, changed by compare-and-set on `version`,
    // so that of several instances recomputing a market one publishes (decisions 109).
    await db.schema
      .createTable('consensus_markets')
      .addColumn('market', 'text', (c) => c.primaryKey())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('quorum_lost', 'integer', (c) => c.notNull())
      .addColumn('last_at', 'bigint')
      .addColumn('last_buy', 'bigint')
      .addColumn('last_sell', 'bigint')
      .addColumn('retry_at', 'bigint')
      .addColumn('held_reason', 'text')
      .addColumn('computed_at', 'bigint', (c) => c.notNull())
      .execute();
    // A published point: its values, its quality and the quotes it used and excluded.
    await db.schema
      .createTable('consensus_points')
      .addColumn('market', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('method_version', 'integer', (c) => c.notNull())
      .addColumn('buy', 'bigint', (c) => c.notNull())
      .addColumn('sell', 'bigint', (c) => c.notNull())
      .addColumn('organisations', 'integer', (c) => c.notNull())
      .addColumn('reporters', 'integer', (c) => c.notNull())
      .addColumn('excluded', 'integer', (c) => c.notNull())
      // Hundredths of a percent; null below two kept organisations.
      .addColumn('dispersion', 'integer')
      .addColumn('confidence', 'text', (c) => c.notNull())
      // JSON: each organisation's verdict with the ids of its quotes.
      .addColumn('inputs', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('consensus_points_pk', ['market', 'at'])
      .execute();
  },
};
