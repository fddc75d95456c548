/**
 * Migration 0004_imports_and_revisions (recorded under this name; never edited once released):
 * every import's record and what each correction replaced (decisions 51).
 */
import type { Kysely, Migration } from 'kysely';

export const importsAndRevisionsMigration: Migration = {
  // Every import's record, and what each correction replaced (decisions 51).
  // Append-only: the service never updates or deletes a row of either.
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('imports')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('source_name', 'text')
      .addColumn('format', 'text')
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('received', 'bigint', (c) => c.notNull())
      .addColumn('inserted', 'bigint', (c) => c.notNull())
      .addColumn('updated', 'bigint', (c) => c.notNull())
      .addColumn('unchanged', 'bigint', (c) => c.notNull())
      .addColumn('accepted_outliers', 'integer', (c) => c.notNull())
      .addColumn('outliers', 'bigint', (c) => c.notNull())
      .addColumn('max_change_percent', 'double precision')
      .execute();
    await db.schema.createIndex('imports_created').on('imports').columns(['created_at', 'id']).execute();
    await db.schema
      .createTable('revisions')
      .addColumn('import_id', 'text', (c) => c.notNull().references('imports.id'))
      .addColumn('seq', 'bigint', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('code', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('old_buy', 'bigint', (c) => c.notNull())
      .addColumn('old_sell', 'bigint', (c) => c.notNull())
      .addColumn('new_buy', 'bigint', (c) => c.notNull())
      .addColumn('new_sell', 'bigint', (c) => c.notNull())
      .addColumn('revised_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('revisions_pk', ['import_id', 'seq'])
      .execute();
    await db.schema
      .createIndex('revisions_series')
      .on('revisions')
      .columns(['code', 'source', 'revised_at'])
      .execute();
  },
};
