/**
 * The Kysely handle both backends share, and what is not market, access or
 * usage data: migrations, the change counters, settings.
 */
import { type Kysely, Migrator, sql, type Transaction } from 'kysely';
import { migrationProvider } from '../migrations/index.js';
import type { Database } from '../schema.js';
import type { StoreDialect, Versions } from '../store.js';
import { ensureUsageFile } from '../usage-file.js';

export type Db = Kysely<Database>;
/** A query runs on the handle or inside one of its transactions. */
export type Runner = Db | Transaction<Database>;

export async function migrate(db: Db, dialect: StoreDialect): Promise<string[]> {
  // On PostgreSQL, name the schema: without it Kysely looks for its own tables in
  // every schema, finds those of another schema of the same database (a second
  // deployment, a parallel test run) and then skips creating them in this one.
  const migrationTableSchema =
    dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db,
    provider: migrationProvider,
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  await ensureUsageFile(db as unknown as Kysely<unknown>);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

export async function versions(db: Db): Promise<Versions> {
  const rows = await db.selectFrom('versions').select(['name', 'value']).execute();
  const v: Versions = { data: 0, access: 0 };
  for (const r of rows) if (r.name === 'data' || r.name === 'access') v[r.name] = Number(r.value);
  return v;
}

/** Moves a change counter: `data` on every import that changed something, `access` on every account change. */
export async function bump(db: Runner, name: 'data' | 'access'): Promise<void> {
  await db.updateTable('versions').set({ value: sql`value + 1` }).where('name', '=', name).execute();
}

export async function setting(db: Db, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}

/**
 * The keyset condition of the admin lists, oldest first: rows after `after` in
 * (created_at, id) order. One condition for every table that has both columns.
 */
export const createdAfter = (after: { at: number; id: string }) =>
  sql<boolean>`(created_at > ${after.at} or (created_at = ${after.at} and id > ${after.id}))`;
