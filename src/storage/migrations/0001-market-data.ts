/**
 * Migration 0001_market_data (recorded under this name; never edited once released):
 * the asset directory, rates and gold, the change counters and the settings (with
 * the cursor secret every instance shares).
 */
import { randomBytes } from 'node:crypto';
import { type Kysely, type Migration, SqliteAdapter, sql } from 'kysely';

/**
 * SQLite only: store observation tables in primary-key order (WITHOUT ROWID), so
 * a history page is one sequential read instead of an index walk plus a lookup
 * per row. PostgreSQL has no such clause and does not need it.
 */
const clustered = (db: Kysely<unknown>) =>
  db.getExecutor().adapter instanceof SqliteAdapter ? sql`without rowid` : sql``;

export const marketDataMigration: Migration = {
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
};
