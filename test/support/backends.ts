/**
 * Which backends the contract suites run against. SQLite and the in-process
 * limiter always; PostgreSQL and Redis when MDS_TEST_POSTGRES_URL and
 * MDS_TEST_REDIS_URL are set (.ci/run sets both). Each test file gets its own
 * PostgreSQL schema and Redis key prefix, so parallel runs cannot collide.
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openStore } from '../../src/storage/open.js';
import type { Store } from '../../src/storage/store.js';

export type BackendName = 'sqlite' | 'postgres';

export const POSTGRES_URL = process.env.MDS_TEST_POSTGRES_URL || undefined;
export const REDIS_URL = process.env.MDS_TEST_REDIS_URL || undefined;

export interface Backend {
  name: BackendName;
  /** Redis URL when this backend pairs with the Redis limiter. */
  redisUrl?: string;
  redisPrefix?: string;
}

/** SQLite + memory limiter, and PostgreSQL + Redis when configured. */
export function backends(): Backend[] {
  const list: Backend[] = [{ name: 'sqlite' }];
  if (POSTGRES_URL)
    list.push({
      name: 'postgres',
      redisUrl: REDIS_URL,
      redisPrefix: `mdstest:${randomBytes(4).toString('hex')}:`,
    });
  return list;
}

/**
 * SQLite alone, for the suites of the HTTP surface that test nothing of the
 * store or the limiter behind it (formats, headers, validation, negotiation,
 * the document, the raw entrance). What the store and the limiter do is tested
 * on every backend by their contract suites (test/storage, test/limits) and by
 * the HTTP suites that read through the store's queries (rates-latest,
 * rates-history, gold-history, premium-history, status, usage, the admin API),
 * which keep `backends()`.
 */
export function sqliteOnly(): Backend[] {
  return [{ name: 'sqlite' }];
}

export interface Database {
  url: string;
  open(): Store;
  drop(): Promise<void>;
}

/**
 * A fresh, empty database for one test file: a temp SQLite file or a new
 * PostgreSQL schema; for SQLite, a copy of `copyOf` when given.
 */
export async function freshDatabase(name: BackendName, copyOf?: string): Promise<Database> {
  if (name === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'mds-test-'));
    const url = join(dir, 'mds.sqlite');
    if (copyOf) copyFileSync(copyOf, url);
    return {
      url,
      open: () => openStore(url),
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (!POSTGRES_URL) throw new Error('MDS_TEST_POSTGRES_URL is not set');
  const schema = `mds_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const u = new URL(POSTGRES_URL);
  u.searchParams.set('options', `-c search_path=${schema}`);
  const url = u.toString();
  return {
    url,
    open: () => openStore(url),
    async drop() {
      const c = new pg.Client({ connectionString: POSTGRES_URL });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    },
  };
}
