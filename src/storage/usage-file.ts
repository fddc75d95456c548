/**
 * The tables of a SQLite store's usage file (docs/decisions.md, 55), as
 * migrations 0005 and 0007 create them, and the check that they are there.
 */
import { type Kysely, SqliteAdapter, sql } from 'kysely';

export const USAGE_TABLE = sql`create table if not exists metering.usage (
  grant_id text not null, period text not null, used bigint not null, updated_at bigint not null,
  constraint usage_pk primary key (grant_id, period))`;
export const MINUTE_USAGE_TABLE = sql`create table if not exists metering.minute_usage (
  grant_id text primary key, window_start bigint not null, used bigint not null)`;
export const USAGE_DAILY_TABLE = sql`create table if not exists metering.usage_daily (
  grant_id text not null, day text not null, key_id text not null, used bigint not null,
  constraint usage_daily_pk primary key (grant_id, day, key_id)) without rowid`;

/**
 * A store file copied without its usage file (by hand, not `mds backup`) has
 * its migrations recorded but an empty usage file beside it: every usage
 * commit would fail. Its tables are created again, empty: the counts were in
 * the file that was not copied (docs/operations.md, "Backups", says to copy
 * both). Nothing happens on a store whose usage is still in the store file
 * (before migration 0005) or on PostgreSQL.
 */
export async function ensureUsageFile(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  const moved = await sql<{ n: number }>`select count(*) as n from main.sqlite_master
    where type = 'table' and name = 'kysely_migration'
    and exists (select 1 from main.kysely_migration where name = '0005_usage_file')`.execute(db);
  if (Number(moved.rows[0]?.n ?? 0) === 0) return;
  await USAGE_TABLE.execute(db);
  await MINUTE_USAGE_TABLE.execute(db);
  const daily = await sql<{ n: number }>`select count(*) as n from main.kysely_migration
    where name = '0007_usage_batches_daily'`.execute(db);
  if (Number(daily.rows[0]?.n ?? 0) > 0) await USAGE_DAILY_TABLE.execute(db);
}
