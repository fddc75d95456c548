/**
 * Migration 0002_access (recorded under this name; never edited once released):
 * accounts, grants, API keys and the monthly usage counts.
 */
import { type Kysely, type Migration, sql } from 'kysely';

export const accessMigration: Migration = {
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
      .addColumn('monthly_request_limit', 'bigint', (c) => c.notNull().check(sql`monthly_request_limit >= 1`))
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
};
