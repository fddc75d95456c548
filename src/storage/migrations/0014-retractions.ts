/**
 * Migration 0014_retractions (listed in migrations/index.ts; never edited once
 * released): observations an operator took back (docs/decisions.md, 105).
 * Additive: the previous release reads none of it.
 */
import { type Kysely, type Migration, sql } from 'kysely';

export const retractionsMigration: Migration = {
  // A retraction removes an observation from `rates` or `gold` and keeps here
  // what was published, why and by whom. While `reinstated_at` is null it also
  // keeps later imports from bringing the same record back (unless they say
  // `--reinstate`): at most one such row per observation.
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('retractions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('code', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('buy', 'bigint', (c) => c.notNull())
      .addColumn('sell', 'bigint', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('actor_id', 'text', (c) => c.notNull())
      .addColumn('actor_label', 'text', (c) => c.notNull())
      .addColumn('retracted_at', 'bigint', (c) => c.notNull())
      .addColumn('reinstated_by', 'text')
      .addColumn('reinstated_at', 'bigint')
      .execute();
    await db.schema
      .createIndex('retractions_standing')
      .unique()
      .on('retractions')
      .columns(['kind', 'code', 'source', 'updated_at'])
      .where(sql.ref('reinstated_at'), 'is', null)
      .execute();
  },
};
