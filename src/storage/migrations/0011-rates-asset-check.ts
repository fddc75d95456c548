/**
 * Migration 0011_rates_asset_check (listed in migrations/index.ts; never edited once
 * released): on PostgreSQL, the foreign key of rates to assets is dropped, and
 * the import checks the currencies it writes once, in its transaction
 * (postgres-import.ts, with `unknownAssets`; docs/decisions.md, 77). The
 * key's trigger looked up `assets` for every row written, about a third of a
 * million-row import. SQLite keeps its key, which its import already turns off
 * for the length of its own check (sqlite-import.ts). The previous release
 * checks the currencies before it imports and never deletes an asset, so it
 * runs on the migrated schema unchanged.
 */
import { type Kysely, type Migration, SqliteAdapter, sql } from 'kysely';

export const ratesAssetCheckMigration: Migration = {
  async up(db: Kysely<unknown>) {
    if (db.getExecutor().adapter instanceof SqliteAdapter) return;
    // The key was declared inline and named by PostgreSQL: found by what it is, not by name.
    await sql`
      do $$
      declare c name;
      begin
        for c in select conname from pg_constraint
          where conrelid = 'rates'::regclass and contype = 'f'
            and confrelid = 'assets'::regclass
        loop
          execute format('alter table rates drop constraint %I', c);
        end loop;
      end $$`.execute(db);
  },
};
