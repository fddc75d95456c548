/**
 * Migration 0013_sealed_idempotent_answers (docs/decisions.md 104): an
 * idempotent answer stored in plain text before answers were sealed is
 * deleted when it holds a secret (a key, a webhook secret, a token), and kept,
 * still replayed, when it does not. The rows are written as the release before
 * wrote them, then the migration's step runs on them.
 */
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealedIdempotentAnswersMigration } from '../../src/storage/migrations/0013-sealed-idempotent-answers.js';
import type { Store } from '../../src/storage/store.js';
import { backends, type Database, freshDatabase } from '../support/backends.js';

const NOW = Date.now();
const DAY = 86_400_000;
const PLAIN = {
  key: '{"data":{"key":"mds_live_aaaaaaaaaaaa_secretsecret","apiKey":{}},"meta":{}}',
  webhook: '{"data":{"id":"whk_1","secret":"whsec_secretsecret"},"meta":{}}',
  account: '{"data":{"id":"acc_1","name":"Kept"},"meta":{"requestId":"req_1"}}',
};

/** `?` placeholders as PostgreSQL numbers them. */
function numbered(q: string): string {
  let i = 0;
  return q.replace(/\?/g, () => `$${++i}`);
}

async function sql(db: Database, statements: Array<[string, unknown[]]>): Promise<void> {
  if (db.url.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      for (const [q, args] of statements) {
        await client.query(numbered(q), args);
      }
    } finally {
      await client.end();
    }
    return;
  }
  const raw = new BetterSqlite3(db.url);
  try {
    for (const [q, args] of statements) raw.prepare(q).run(...args);
  } finally {
    raw.close();
  }
}

describe.each(backends())('migration 0013 on $name', ({ name }) => {
  let db: Database;
  let store: Store;
  beforeAll(async () => {
    db = await freshDatabase(name);
    store = db.open();
    await store.migrate();
    const insert = 'insert into idempotency_keys values (?, ?, ?, ?, ?, ?, ?)';
    await sql(db, [
      ...Object.entries(PLAIN).map(([key, body]): [string, unknown[]] => [
        insert,
        ['adm_old', key, `fp-${key}`, 201, body, NOW, NOW + DAY],
      ]),
    ]);
    // The migration as an upgrade runs it, on rows the release before wrote.
    const kysely = new Kysely<unknown>({
      dialect: db.url.startsWith('postgres')
        ? new PostgresDialect({ pool: new pg.Pool({ connectionString: db.url, max: 1 }) })
        : new SqliteDialect({ database: new BetterSqlite3(db.url) }),
    });
    try {
      await sealedIdempotentAnswersMigration.up(kysely);
    } finally {
      await kysely.destroy();
    }
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('deletes the plain answers holding a secret: their keys are free again', async () => {
    for (const key of ['key', 'webhook']) {
      expect(await store.operator.claimIdempotencyKey('adm_old', key, `fp-${key}`, NOW, DAY)).toEqual({
        state: 'claimed',
      });
    }
  });

  it('keeps a plain answer without a secret as it was', async () => {
    expect(await store.operator.claimIdempotencyKey('adm_old', 'account', 'fp-account', NOW, DAY)).toEqual({
      state: 'done',
      fingerprint: 'fp-account',
      status: 201,
      body: PLAIN.account,
    });
  });
});
