/**
 * Migration 0005_usage_file (recorded under this name; never edited once released):
 * SQLite only: the usage tables move to the usage file (decisions 55).
 */
import { type Kysely, type Migration, SqliteAdapter, sql } from 'kysely';
import { MINUTE_USAGE_TABLE, USAGE_TABLE } from '../usage-file.js';

export const usageFileMigration: Migration = {
  // SQLite only (decisions 55): `usage` and `minute_usage`, written by a
  // serving process on every tick, move to the usage file beside the store,
  // attached as `metering` on every connection (storage/sqlite.ts), so that an
  // import's write lock on the store file never holds up a usage commit.
  // Their foreign keys to grants are not kept: SQLite cannot enforce one
  // across files (a foreign key's parent must be in the child's own
  // database), and grants are never deleted (a status changes), so they
  // guarded nothing the service does. Rerunnable step by step: in WAL mode a
  // transaction over two files is atomic in each file, not across them.
  async up(db: Kysely<unknown>) {
    if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
    await USAGE_TABLE.execute(db);
    await MINUTE_USAGE_TABLE.execute(db);
    for (const table of ['usage', 'minute_usage']) {
      const inMain = await sql<{ n: number }>`select count(*) as n from main.sqlite_master
        where type = 'table' and name = ${table}`.execute(db);
      if (Number(inMain.rows[0]?.n ?? 0) === 0) continue;
      // The store's rows are the truth: a usage file left from an older store at this path is replaced.
      const [moved, from] = [sql.raw(`metering.${table}`), sql.raw(`main.${table}`)];
      await sql`delete from ${moved}`.execute(db);
      await sql`insert into ${moved} select * from ${from}`.execute(db);
      await sql`drop table ${from}`.execute(db);
    }
  },
};
