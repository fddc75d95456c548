/**
 * A full disk is a state, not a crash (docs/reliability.md, docs/decisions.md
 * 97): SQLite's files capped with `max_page_count` (the usage file, then the
 * store file), PostgreSQL's SQLSTATE 53100 raised by a trigger in the test's
 * schema. While full: /readyz answers not ready with the reason, /v1 503 with
 * Retry-After, admin writes 507 naming the cause (never "cannot rollback").
 * The cap raised or the trigger dropped: ready again and /v1 answering 200
 * within 5 s, without a restart. The stored usage equals the answers 200.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { buildAdminApp } from '../../src/admin-app.js';
import { openStore } from '../../src/storage/open.js';
import type { SqliteStore } from '../../src/storage/sqlite.js';
import type { Store } from '../../src/storage/store.js';
import { createAdminToken } from '../../src/use-cases/admin-tokens.js';
import { ALL_ADMIN_SCOPES, TEST_ACTOR } from '../support/admin.js';
import { type Database, freshDatabase, POSTGRES_URL, REDIS_URL } from '../support/backends.js';
import { createKey } from '../support/keys.js';
import { validateResponses } from '../support/openapi.js';
import { waitFor } from '../support/wait.js';
import { type Instance, instance, Load, redisMonth, seed, storedUsage } from './support.js';

/** Space freed → ready and answering 200 again within this (the probe runs each second). */
const RESUME_WITHIN_MS = 5_000;
/** SQLite's largest page cap: no cap. */
const NO_CAP = 1_073_741_823;

let db: Database | undefined;
let running: Instance | undefined;
let admin: FastifyInstance | undefined;
afterEach(async () => {
  await admin?.close();
  await running?.close().catch(() => {});
  await db?.drop();
  admin = running = db = undefined;
});

async function readiness(i: Instance) {
  const res = await i.app.inject({ method: 'GET', url: '/readyz' });
  return { status: res.statusCode, retryAfter: res.headers['retry-after'], body: res.json().data };
}

/** The admin app on the instance's services, its answers checked against its document, its log kept. */
async function adminOf(i: Instance, store: Store) {
  const log: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => log.push(JSON.parse(line)) });
  admin = await buildAdminApp(i.runtime.services, { logger });
  await admin.ready();
  await validateResponses(admin, '/admin/openapi.json');
  const made = await createAdminToken(store, TEST_ACTOR, { label: 'disk', scopes: ALL_ADMIN_SCOPES });
  if (!made.ok) throw new Error(JSON.stringify(made.error));
  const app = admin;
  const newAccount = (n: number) =>
    app.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: { authorization: `Bearer ${made.value.token}`, 'content-type': 'application/json' },
      // Long enough that a few accounts and their audit records need new pages.
      payload: JSON.stringify({ name: `Account ${n} ${'x'.repeat(180)}`, externalId: `disk-${n}` }),
    });
  return { log, newAccount };
}

/** Load, the fault, its end; then the usage read back equals the answers 200. */
async function exactUnder(
  i: Instance,
  keys: readonly string[],
  grantId: string,
  url: string,
  fault: (load: Load) => Promise<void>,
  redis?: { url: string; prefix: string },
) {
  const load = new Load(() => [i.app], keys, 8);
  try {
    await load.moreOk(100);
    await fault(load);
  } finally {
    await load.stop();
  }
  await i.runtime.recorder.flush();
  expect(load.wrong).toEqual([]);
  const stored = await storedUsage(url, grantId);
  expect(stored.used).toBe(load.ok);
  expect(stored.daily).toBe(load.ok);
  if (redis)
    await waitFor(async () => (await redisMonth(redis.url, redis.prefix, grantId)) === load.ok, {
      timeout: 10_000,
      what: `the Redis month counter = the store's ${load.ok}`,
    });
  return load;
}

/** Waits until /readyz is not ready for the disk, and checks how it says so. */
async function notReadyForDisk(i: Instance, cause: RegExp) {
  const r = await waitFor(
    async () => {
      const r = await readiness(i);
      return r.status === 503 ? r : null;
    },
    { timeout: 10_000, what: '/readyz not ready' },
  );
  expect(r.retryAfter).toBe('5');
  expect(r.body).toMatchObject({ status: 'not_ready', store: true, limiter: true });
  expect(r.body.reason).toMatch(cause);
}

/** Waits until /readyz is ready again and /v1 answers 200s, within RESUME_WITHIN_MS of `freed`. */
async function resumes(i: Instance, load: Load, freed: number) {
  await waitFor(async () => (await readiness(i)).status === 200, {
    timeout: RESUME_WITHIN_MS,
    what: '/readyz ready again',
  });
  await load.moreOk(50, Math.max(1, RESUME_WITHIN_MS - (performance.now() - freed)));
  console.log(`ready and answering ${Math.round(performance.now() - freed)} ms after space was freed`);
}

describe('a full disk on SQLite (max_page_count)', () => {
  async function serving() {
    db = await freshDatabase('sqlite');
    const store = openStore(db.url, { serving: true }) as SqliteStore;
    running = await instance(db.url, undefined, store);
    const { key, grantId } = await seed(store);
    return { i: running, store, key, grantId, url: db.url };
  }

  it('the usage file full: /v1 503 with Retry-After, /readyz not ready, then service resumes; usage exact', async () => {
    const { i, store, key, grantId, url } = await serving();
    // Every request its own key: each new key's first day row needs room in the usage file.
    const keys = [key];
    for (let k = 0; k < 400; k++) keys.push((await createKey(store, { grantId })).key);
    const usageDb = store.usageConnection().db;
    const load = await exactUnder(i, keys, grantId, url, async (load) => {
      // The cap is the file's size now: no page more.
      usageDb.exec('pragma max_page_count = 1');
      await waitFor(() => load.unavailable > 0, {
        timeout: 10_000,
        what: 'a 503 while the usage file is full',
      });
      await notReadyForDisk(i, /^disk full \(SQLITE_FULL\)/);
      usageDb.exec(`pragma max_page_count = ${NO_CAP}`);
      await resumes(i, load, performance.now());
    });
    expect(load.unavailable).toBeGreaterThan(0);
  }, 60_000);

  it('the store file full: admin writes 507 naming SQLITE_FULL, never a second rollback; then they resume', async () => {
    const { i, store, key, grantId, url } = await serving();
    const { log, newAccount } = await adminOf(i, store);
    expect((await newAccount(0)).statusCode).toBe(201);
    await exactUnder(i, [key], grantId, url, async (load) => {
      store.conn.db.exec('pragma main.max_page_count = 1');
      let n = 1;
      const refused = await waitFor(
        async () => {
          const res = await newAccount(n++);
          expect([201, 507]).toContain(res.statusCode);
          return res.statusCode === 507 ? res : null;
        },
        { timeout: 10_000, interval: 0, what: 'an admin write refused' },
      );
      expect(refused.json().error).toMatchObject({ status: 507, code: 'insufficient_storage' });
      expect(refused.json().error.message).toMatch(/^disk full \(SQLITE_FULL\): .*nothing was changed/);
      const warned = log.filter((l) => /disk full/.test(String(l.msg)));
      expect(warned.length).toBeGreaterThan(0);
      expect(JSON.stringify(warned)).toContain('database or disk is full');
      expect(JSON.stringify(log)).not.toContain('cannot rollback');
      expect(log.filter((l) => l.msg === 'unhandled error')).toEqual([]);
      await notReadyForDisk(i, /^disk full \(SQLITE_FULL\)/);
      // /v1 still answers: its usage goes to the other file.
      await load.moreOk(50);
      store.conn.db.exec(`pragma main.max_page_count = ${NO_CAP}`);
      await resumes(i, load, performance.now());
      expect((await newAccount(n)).statusCode).toBe(201);
    });
  }, 60_000);
});

const topologies = [
  { name: 'store limiter', redis: false },
  ...(REDIS_URL ? [{ name: 'Redis', redis: true }] : []),
];

describe.runIf(POSTGRES_URL).each(topologies)(
  'a full disk on PostgreSQL (SQLSTATE 53100), $name',
  ({ redis }) => {
    /** Runs `sql` in the test's schema (its URL sets the search path). */
    async function inSchema(url: string, sql: string): Promise<void> {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(sql);
      } finally {
        await client.end();
      }
    }
    const fill = (table: string) => `
    create or replace function mds_test_disk_full() returns trigger language plpgsql as $$
    begin raise exception 'could not extend file: No space left on device' using errcode = '53100'; end $$;
    create trigger mds_test_disk_full before insert on ${table}
      for each row execute function mds_test_disk_full();`;
    const free = (table: string) => `drop trigger mds_test_disk_full on ${table}`;

    async function serving() {
      db = await freshDatabase('postgres');
      const prefix = `mdsdisk:${randomBytes(4).toString('hex')}:`;
      const r = redis ? { url: REDIS_URL!, prefix } : undefined;
      running = await instance(db.url, r);
      const store = running.runtime.services.store;
      const { key, grantId } = await seed(store);
      return { i: running, store, key, grantId, url: db.url, r };
    }

    it('usage inserts refused: /v1 503 with Retry-After, /readyz not ready, then service resumes; usage exact', async () => {
      const { i, key, grantId, url, r } = await serving();
      const load = await exactUnder(
        i,
        [key],
        grantId,
        url,
        async (load) => {
          await inSchema(url, fill('usage'));
          await waitFor(() => load.unavailable > 0, {
            timeout: 10_000,
            what: 'a 503 while the disk is full',
          });
          await notReadyForDisk(i, /^disk full \(SQLSTATE 53100\)/);
          await inSchema(url, free('usage'));
          await resumes(i, load, performance.now());
        },
        r,
      );
      expect(load.unavailable).toBeGreaterThan(0);
    }, 60_000);

    it('admin writes refused: 507 naming SQLSTATE 53100; then they resume', async () => {
      const { i, store, url } = await serving();
      const { log, newAccount } = await adminOf(i, store);
      await inSchema(url, fill('accounts'));
      const refused = await newAccount(1);
      expect(refused.statusCode).toBe(507);
      expect(refused.json().error.message).toMatch(/^disk full \(SQLSTATE 53100\): .*nothing was changed/);
      expect(JSON.stringify(log)).toContain('No space left on device');
      await notReadyForDisk(i, /^disk full \(SQLSTATE 53100\)/);
      await inSchema(url, free('accounts'));
      await waitFor(async () => (await readiness(i)).status === 200, {
        timeout: RESUME_WITHIN_MS,
        what: '/readyz ready again',
      });
      expect((await newAccount(2)).statusCode).toBe(201);
    }, 60_000);
  },
);
