/**
 * Migration 0006_operator (listed in migrations/index.ts; never edited once
 * released): external ids from a billing system, admin tokens, the audit log
 * and the admin API's idempotency keys (docs/decisions.md, 57).
 */
import { type Kysely, type Migration, SqliteAdapter, sql } from 'kysely';

export const operatorMigration: Migration = {
  // The operator's side (docs/decisions.md, 57): external ids from a billing
  // system, admin tokens, the audit log and the admin API's idempotency keys.
  // Additive: the previous release reads none of it. Unique indexes accept any
  // number of nulls on both dialects, so records without an external id coexist.
  async up(db: Kysely<unknown>) {
    const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
    await db.schema.alterTable('accounts').addColumn('external_id', 'text').execute();
    await db.schema
      .alterTable('accounts')
      .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`update accounts set updated_at = created_at`.execute(db);
    await db.schema
      .createIndex('accounts_external_id')
      .unique()
      .on('accounts')
      .column('external_id')
      .execute();
    await db.schema.createIndex('accounts_created').on('accounts').columns(['created_at', 'id']).execute();
    await db.schema.alterTable('grants').addColumn('external_id', 'text').execute();
    await db.schema
      .createIndex('grants_provider_external_id')
      .unique()
      .on('grants')
      .columns(['provider', 'external_id'])
      .execute();
    await db.schema
      .createIndex('grants_account')
      .on('grants')
      .columns(['account_id', 'created_at'])
      .execute();
    await db.schema
      .createTable('admin_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('digest', 'text', (c) => c.notNull().unique())
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('scopes', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('active','revoked')`))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema
      .createTable('audit_log')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('actor_id', 'text', (c) => c.notNull())
      .addColumn('actor_label', 'text', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('target_id', 'text', (c) => c.notNull())
      .addColumn('changes', 'text', (c) => c.notNull())
      .addColumn('request_id', 'text')
      .execute();
    // Newest first, whole or filtered by target, actor or action.
    await db.schema.createIndex('audit_log_at').on('audit_log').columns(['at', 'id']).execute();
    for (const column of ['target_id', 'actor_id', 'action']) {
      await db.schema
        .createIndex(`audit_log_${column}`)
        .on('audit_log')
        .columns([column, 'at', 'id'])
        .execute();
    }
    // Append-only, enforced by the store itself: a mistaken UPDATE or DELETE fails.
    if (sqlite) {
      for (const op of ['update', 'delete']) {
        await sql
          .raw(
            `create trigger audit_log_no_${op} before ${op} on audit_log
             begin select raise(abort, 'audit_log is append-only'); end`,
          )
          .execute(db);
      }
    } else {
      await sql`create function audit_log_append_only() returns trigger language plpgsql as $$
        begin raise exception 'audit_log is append-only'; end $$`.execute(db);
      await sql`create trigger audit_log_append_only before update or delete on audit_log
        for each row execute function audit_log_append_only()`.execute(db);
    }
    await db.schema
      .createTable('idempotency_keys')
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('status', 'integer')
      .addColumn('body', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['actor', 'key'])
      .execute();
    // Claims sweep expired rows away: the table holds a day of requests at most.
    await db.schema
      .createIndex('idempotency_keys_expires')
      .on('idempotency_keys')
      .column('expires_at')
      .execute();
  },
};
