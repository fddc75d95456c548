/**
 * Stores for the bench: a temp SQLite file and, when PostgreSQL and Redis
 * answer, a fresh PostgreSQL schema; both hold the two-year sample and one key
 * whose limits the load can never reach.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createAccount, createGrant, createKey } from '../src/access/admin.js';
import { seedSample } from '../src/cli/commands/data.js';
import { ENTITLEMENTS } from '../src/domain/scopes.js';
import type { generateSample } from '../src/sample/generate.js';
import { openStore } from '../src/storage/open.js';
import type { Store } from '../src/storage/store.js';

/** Per-minute and monthly limits in the billions: the load must never meet a 429. */
export const UNREACHABLE_LIMIT = 5_000_000_000;
const DAY = 86_400_000;

export async function provisionKey(store: Store): Promise<string> {
  const account = await createAccount(store, { name: 'Benchmark' });
  const grant = await createGrant(store, {
    accountId: account.id,
    plan: 'benchmark',
    scopes: [...ENTITLEMENTS],
    monthlyRequestLimit: UNREACHABLE_LIMIT,
    requestsPerMinute: UNREACHABLE_LIMIT,
    validFrom: Date.now() - DAY,
  });
  return (await createKey(store, { grantId: grant.id, label: 'bench' })).key;
}

export interface Prepared {
  url: string;
  key: string;
  seconds: number;
}

async function prepare(url: string, sample: ReturnType<typeof generateSample>): Promise<Prepared> {
  const started = performance.now();
  const store = openStore(url);
  try {
    await store.migrate();
    await seedSample(store, sample);
    const key = await provisionKey(store);
    return { url, key, seconds: (performance.now() - started) / 1000 };
  } finally {
    await store.close();
  }
}

export function prepareSqlite(dir: string, sample: ReturnType<typeof generateSample>): Promise<Prepared> {
  return prepare(join(dir, 'bench.sqlite'), sample);
}

export interface PgSchema {
  url: string;
  schema: string;
  drop(): Promise<void>;
}

/** A new schema, selected through the URL's search_path (as test/support/backends.ts does). */
export async function freshSchema(baseUrl: string, label: string): Promise<PgSchema> {
  const schema = `mds_bench_${label}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`create schema ${schema}`);
  } finally {
    await admin.end();
  }
  const u = new URL(baseUrl);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: u.toString(),
    schema,
    async drop() {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      try {
        await c.query(`drop schema if exists ${schema} cascade`);
      } finally {
        await c.end();
      }
    },
  };
}

export async function preparePostgres(
  baseUrl: string,
  sample: ReturnType<typeof generateSample>,
): Promise<Prepared & { drop(): Promise<void> }> {
  const s = await freshSchema(baseUrl, 'load');
  try {
    return { ...(await prepare(s.url, sample)), drop: s.drop };
  } catch (err) {
    await s.drop();
    throw err;
  }
}

export interface ScaleOut {
  postgresUrl: string;
  redisUrl: string;
  postgresVersion: string;
  redisVersion: string;
}

const DEFAULT_PG = 'postgres://postgres@127.0.0.1:5432/test';
const DEFAULT_REDIS = 'redis://127.0.0.1:6379';

/** PostgreSQL + Redis from the environment, or the local defaults when they answer. */
export async function detectScaleOut(): Promise<ScaleOut | { reason: string }> {
  const postgresUrl = process.env.MDS_BENCH_POSTGRES_URL || process.env.MDS_TEST_POSTGRES_URL || DEFAULT_PG;
  const redisUrl = process.env.MDS_BENCH_REDIS_URL || process.env.MDS_TEST_REDIS_URL || DEFAULT_REDIS;
  let postgresVersion: string;
  try {
    const c = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 2_000 });
    await c.connect();
    try {
      postgresVersion = String((await c.query('show server_version')).rows[0]?.server_version ?? '?');
    } finally {
      await c.end();
    }
  } catch (err) {
    return { reason: `PostgreSQL at ${redact(postgresUrl)} does not answer (${(err as Error).message})` };
  }
  const redis = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 0 });
  redis.on('error', () => {});
  try {
    await redis.connect();
    const info = await redis.info('server');
    const redisVersion = /redis_version:(\S+)/.exec(info)?.[1] ?? '?';
    return { postgresUrl, redisUrl, postgresVersion, redisVersion };
  } catch (err) {
    return { reason: `Redis at ${redact(redisUrl)} does not answer (${(err as Error).message})` };
  } finally {
    redis.disconnect();
  }
}

/** Deletes every Redis key under `prefix` (the bench's own limiter counters). */
export async function dropRedisPrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}
