/**
 * Which backends the contract suites run against. SQLite and the in-process
 * limiter always; PostgreSQL and Redis when MDS_TEST_POSTGRES_URL and
 * MDS_TEST_REDIS_URL are set (.ci/run sets both). Each test file gets its own
 * PostgreSQL schema and Redis key prefix, so parallel runs cannot collide;
 * the schemas are dropped at the end of the run (dropSchema).
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type {} from 'vitest';
import { openStore } from '../../src/storage/open.js';
import type { Store } from '../../src/storage/store.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The file listing this run's PostgreSQL schemas, dropped at its end (global-setup.ts). */
    schemasFile: string;
  }
}

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
 * the document). What the store and the limiter do is tested
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
    else writeFileSync(url, ''); // an empty SQLite store: `mds` refuses a missing one (decisions 90)
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
    drop: () => dropSchema(schema),
  };
}

/**
 * Drops a PostgreSQL schema of this test run: at the run's end (global-setup.ts
 * drops those written in the file it provides), not now. A schema dropped
 * while another file's store migrates fails that migration: Kysely's migrator
 * lists the tables of every schema of the database, and a schema gone midway
 * is "schema … does not exist". Outside a run (no file), dropped now.
 */
export async function dropSchema(schema: string): Promise<void> {
  let file: string | undefined;
  try {
    // Imported here: the global setup imports this module, and `vitest` cannot load there.
    file = (await import('vitest')).inject('schemasFile');
  } catch {
    file = undefined;
  }
  if (file) {
    appendFileSync(file, `${schema}\n`);
    return;
  }
  await dropSchemasNow([schema]);
}

/** Drops these PostgreSQL schemas and what they hold, in one statement. */
export async function dropSchemasNow(schemas: string[]): Promise<void> {
  if (!POSTGRES_URL || schemas.length === 0) return;
  const c = new pg.Client({ connectionString: POSTGRES_URL });
  await c.connect();
  try {
    await c.query(`drop schema if exists ${schemas.join(', ')} cascade`);
  } finally {
    await c.end();
  }
}
