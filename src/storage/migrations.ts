/**
 * Versioned migrations: one history for both dialects. Kysely's schema builder
 * emits the right DDL for each; where the dialects must differ it is said here.
 * Never edit a released migration: add the next one.
 */
import { randomBytes } from 'node:crypto';
import { type Kysely, type Migration, type MigrationProvider, SqliteAdapter, sql } from 'kysely';
import { consumeMigration, consumeRowUpdatesMigration } from './migration-consume.js';
import { operatorMigration } from './migration-operator.js';
import { ratesAssetCheckMigration } from './migration-rates-assets.js';
import { usageMigration } from './migration-usage.js';
import { webhooksMigration } from './migration-webhooks.js';
import { MINUTE_USAGE_TABLE, USAGE_TABLE } from './usage-file.js';

/**
 * SQLite only: store observation tables in primary-key order (WITHOUT ROWID), so
 * a history page is one sequential read instead of an index walk plus a lookup
 * per row. PostgreSQL has no such clause and does not need it.
 */
const clustered = (db: Kysely<unknown>) =>
  db.getExecutor().adapter instanceof SqliteAdapter ? sql`without rowid` : sql``;

const migrations: Record<string, Migration> = {
  '0001_market_data': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('assets')
        .addColumn('code', 'text', (c) => c.primaryKey())
        .addColumn('symbol', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull().check(sql`type in ('currency','metal','crypto')`))
        .addColumn('name_en', 'text', (c) => c.notNull())
        .addColumn('name_fr', 'text', (c) => c.notNull())
        .addColumn('name_ar', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('rates')
        .addColumn('currency', 'text', (c) => c.notNull().references('assets.code'))
        .addColumn('source', 'text', (c) =>
          c.notNull().check(sql`source in ('parallel','official','transfer')`),
        )
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('buy', 'bigint', (c) => c.notNull().check(sql`buy > 0`))
        .addColumn('sell', 'bigint', (c) => c.notNull().check(sql`sell > 0`))
        .addPrimaryKeyConstraint('rates_pk', ['currency', 'source', 'updated_at'])
        .modifyEnd(clustered(db))
        .execute();
      await db.schema
        .createTable('gold')
        .addColumn('purity', 'text', (c) => c.notNull().check(sql`purity in ('18K','21K','24K')`))
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('buy', 'bigint', (c) => c.notNull().check(sql`buy > 0`))
        .addColumn('sell', 'bigint', (c) => c.notNull().check(sql`sell > 0`))
        .addPrimaryKeyConstraint('gold_pk', ['purity', 'updated_at'])
        .modifyEnd(clustered(db))
        .execute();
      // Newest-first history pages walk this index backwards.
      await db.schema.createIndex('gold_updated_at').on('gold').columns(['updated_at', 'purity']).execute();
      await db.schema
        .createTable('versions')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('value', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('settings')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
      await sql`insert into versions (name, value) values ('data', 1), ('access', 1)`.execute(db);
      // Shared by every instance so that a cursor issued by one is honoured by all.
      const secret = randomBytes(32).toString('base64url');
      await sql`insert into settings (name, value) values ('cursor_secret', ${secret})`.execute(db);
    },
  },
  '0002_access': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text')
        .addColumn('email', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('grants')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('plan', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) =>
          c.notNull().check(sql`status in ('active','suspended','cancelled')`),
        )
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('valid_from', 'bigint', (c) => c.notNull())
        .addColumn('valid_until', 'bigint', (c) => c.notNull())
        .addColumn('monthly_request_limit', 'bigint', (c) =>
          c.notNull().check(sql`monthly_request_limit >= 1`),
        )
        .addColumn('requests_per_minute', 'bigint', (c) => c.notNull().check(sql`requests_per_minute >= 1`))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('api_keys')
        .addColumn('public_id', 'text', (c) => c.primaryKey())
        .addColumn('grant_id', 'text', (c) => c.notNull().references('grants.id'))
        .addColumn('environment', 'text', (c) => c.notNull().check(sql`environment in ('live','test')`))
        .addColumn('digest', 'text', (c) => c.notNull())
        .addColumn('label', 'text', (c) => c.notNull())
        .addColumn('scopes', 'text')
        .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('active','revoked')`))
        .addColumn('expires_at', 'bigint')
        .addColumn('last_used_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('revoked_at', 'bigint')
        .execute();
      await db.schema.createIndex('api_keys_grant').on('api_keys').column('grant_id').execute();
      await db.schema
        .createTable('usage')
        .addColumn('grant_id', 'text', (c) => c.notNull().references('grants.id'))
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('used', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_pk', ['grant_id', 'period'])
        .execute();
    },
  },
  '0003_minute_usage': {
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
  },
  '0004_imports_and_revisions': {
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
  },
  '0005_usage_file': {
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
  },
  // The operator's side (docs/decisions.md, 57): its own file, for its size.
  '0006_operator': operatorMigration,
  // Usage by day and the ids of usage commits (docs/decisions.md, 59).
  '0007_usage_batches_daily': usageMigration,
  // Webhook subscriptions, the outbox and deliveries (docs/decisions.md, 68).
  '0008_webhooks': webhooksMigration,
  // The store limiter's check-and-consume in one round trip (docs/decisions.md, 74).
  '0009_consume_function': consumeMigration,
  // Its updates by primary key, row by row (docs/decisions.md, 74).
  '0010_consume_row_updates': consumeRowUpdatesMigration,
  // On PostgreSQL, rates' assets checked once per import, not by a key on every row (docs/decisions.md, 77).
  '0011_rates_asset_check': ratesAssetCheckMigration,
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
